//! Name resolution that drops forbidden addresses. ureq connects to exactly the addresses the
//! resolver returns, so checking here leaves no gap between the check and the connection (a
//! rebinding DNS server cannot answer a public address to a check and a private one to connect).

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

use super::Allowance;
use super::address::forbidden_reason;

/// Resolves with the system resolver, then keeps only the addresses nib may contact.
#[derive(Debug)]
pub(super) struct GuardedResolver {
    system: DefaultResolver,
    allowance: Arc<Allowance>,
}

impl GuardedResolver {
    pub(super) fn new(allowance: Arc<Allowance>) -> GuardedResolver {
        GuardedResolver { system: DefaultResolver::default(), allowance }
    }
}

/// A host resolved only to forbidden addresses.
#[derive(Debug)]
pub(super) struct Refused {
    pub(super) address: std::net::IpAddr,
    pub(super) reason: &'static str,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {}", self.address, self.reason)
    }
}

impl std::error::Error for Refused {}

impl Resolver for GuardedResolver {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let resolved = self.system.resolve(uri, config, timeout)?;
        let mut kept = self.empty();
        let mut refused = None;
        for &address in resolved.iter() {
            match permitted(&self.allowance, address) {
                Ok(()) => kept.push(address),
                Err(reason) => {
                    refused.get_or_insert(Refused { address: address.ip(), reason });
                }
            }
        }
        match (kept.is_empty(), refused) {
            (true, Some(refused)) => Err(ureq::Error::Other(Box::new(refused))),
            (true, None) => Err(ureq::Error::HostNotFound),
            (false, _) => Ok(kept),
        }
    }
}

/// Whether nib may connect to `address`; the error says what kind of address it is.
fn permitted(allowance: &Allowance, address: SocketAddr) -> Result<(), &'static str> {
    permitted_among(allowance, address, || {
        if_addrs::get_if_addrs().map(|interfaces| interfaces.iter().map(if_addrs::Interface::ip).collect())
    })
}

/// [`permitted`] with this machine's addresses given by `local`.
fn permitted_among(
    allowance: &Allowance,
    address: SocketAddr,
    local: impl FnOnce() -> std::io::Result<Vec<std::net::IpAddr>>,
) -> Result<(), &'static str> {
    if allowance.covers(address) {
        return Ok(());
    }
    if let Some(reason) = forbidden_reason(address.ip()) {
        return Err(reason);
    }
    // An address of this machine's own interfaces is this machine, whatever its range: a
    // public address assigned here reaches local services as loopback does.
    match local() {
        Ok(addresses) if addresses.contains(&address.ip()) => Err("an address of this machine"),
        Ok(_) => Ok(()),
        Err(_) => Err("an address nib cannot tell from this machine's own (its interfaces cannot be listed)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_address_of_this_machine_is_refused_as_this_machine() {
        let interfaces = if_addrs::get_if_addrs().expect("interfaces");
        assert!(!interfaces.is_empty());
        for interface in interfaces {
            let address = SocketAddr::new(interface.ip(), 443);
            assert!(permitted(&Allowance::default(), address).is_err(), "{address}");
        }
        assert_eq!(permitted(&Allowance::default(), "1.1.1.1:443".parse().unwrap()), Ok(()));
    }

    #[test]
    fn a_public_address_assigned_here_is_this_machine() {
        let here = || Ok(vec!["8.8.4.4".parse().unwrap()]);
        let refused = permitted_among(&Allowance::default(), "8.8.4.4:443".parse().unwrap(), here);
        assert_eq!(refused, Err("an address of this machine"));
        assert_eq!(permitted_among(&Allowance::default(), "8.8.8.8:443".parse().unwrap(), here), Ok(()));
        let unknown = || Err(std::io::Error::other("no interfaces"));
        assert!(permitted_among(&Allowance::default(), "8.8.8.8:443".parse().unwrap(), unknown).is_err());
    }
}
