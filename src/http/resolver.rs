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
    if allowance.covers(address) {
        return Ok(());
    }
    match forbidden_reason(address.ip()) {
        Some(reason) => Err(reason),
        None => Ok(()),
    }
}
