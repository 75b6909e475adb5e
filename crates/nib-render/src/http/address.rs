//! Which addresses a fetch may connect to. Prompts reach the network through G(), and the URLs
//! nib fetches come from answers of other servers; neither may make nib talk to this machine,
//! its network, or a cloud metadata service (server-side request forgery).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` must not be contacted, or `None` when it is a public address.
pub(crate) fn forbidden_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    match (a, b, c) {
        (0, _, _) => Some("an unspecified (0.0.0.0/8) address"),
        (127, _, _) => Some("a loopback address"),
        (10, _, _) => Some("a private (10.0.0.0/8) address"),
        (172, 16..=31, _) => Some("a private (172.16.0.0/12) address"),
        (192, 168, _) => Some("a private (192.168.0.0/16) address"),
        // 169.254.169.254 is the metadata service of most clouds.
        (169, 254, _) => Some("a link-local or cloud metadata (169.254.0.0/16) address"),
        // Carrier-grade NAT; Alibaba Cloud's metadata service lives here (100.100.100.200).
        (100, 64..=127, _) => Some("a shared (100.64.0.0/10) address"),
        (192, 0, 0) => Some("an IETF protocol (192.0.0.0/24) address"),
        // Documentation ranges (RFC 5737): never a real server, and a machine that uses one for
        // itself (test networks do) must not be reached through it.
        (192, 0, 2) => Some("a documentation (192.0.2.0/24) address"),
        (198, 51, 100) => Some("a documentation (198.51.100.0/24) address"),
        (203, 0, 113) => Some("a documentation (203.0.113.0/24) address"),
        (198, 18..=19, _) => Some("a benchmarking (198.18.0.0/15) address"),
        (224..=239, _, _) => Some("a multicast address"),
        (240..=255, _, _) => Some("a reserved or broadcast address"),
        _ => None,
    }
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if ip.is_unspecified() {
        return Some("the unspecified address (::)");
    }
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    // Forms that carry an IPv4 address are judged by it: ::ffff:127.0.0.1 reaches 127.0.0.1.
    if let Some(v4) = embedded_v4(ip) {
        return forbidden_v4(v4);
    }
    if segments[0] == 0x2001 && segments[1] == 0x0db8 {
        return Some("a documentation (2001:db8::/32) address");
    }
    match segments[0] {
        0xfc00..=0xfdff => Some("a unique-local (fc00::/7) address"),
        0xfe80..=0xfebf => Some("a link-local (fe80::/10) address"),
        0xfec0..=0xfeff => Some("a site-local (fec0::/10) address"),
        0xff00..=0xffff => Some("a multicast address"),
        _ => None,
    }
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
/// NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(text: &str) -> bool {
        forbidden_reason(text.parse().unwrap()).is_some()
    }

    #[test]
    fn every_blocked_ipv4_range_is_refused_at_both_ends() {
        for range in [
            ("0.0.0.0", "0.255.255.255"),
            ("127.0.0.0", "127.255.255.255"),
            ("10.0.0.0", "10.255.255.255"),
            ("172.16.0.0", "172.31.255.255"),
            ("192.168.0.0", "192.168.255.255"),
            ("169.254.0.0", "169.254.255.255"),
            ("100.64.0.0", "100.127.255.255"),
            ("192.0.0.0", "192.0.0.255"),
            ("198.18.0.0", "198.19.255.255"),
            ("192.0.2.0", "192.0.2.255"),
            ("198.51.100.0", "198.51.100.255"),
            ("203.0.113.0", "203.0.113.255"),
            ("224.0.0.0", "255.255.255.255"),
        ] {
            assert!(blocked(range.0), "{}", range.0);
            assert!(blocked(range.1), "{}", range.1);
        }
        assert!(blocked("169.254.169.254"), "cloud metadata");
        assert!(blocked("100.100.100.200"), "Alibaba Cloud metadata");
    }

    #[test]
    fn public_ipv4_next_to_the_blocked_ranges_is_allowed() {
        for ip in [
            "1.1.1.1",
            "9.255.255.255",
            "11.0.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "192.0.3.0",
            "198.51.99.255",
            "203.0.114.0",
            "151.101.2.132",
        ] {
            assert!(!blocked(ip), "{ip}");
        }
    }

    #[test]
    fn blocked_ipv6_ranges_are_refused() {
        for ip in
            ["::", "::1", "fc00::1", "fd00:ec2::254", "fdff:ffff::", "fe80::1", "febf:ffff::1", "fec0::1", "ff02::1"]
        {
            assert!(blocked(ip), "{ip}");
        }
        assert!(blocked("2001:db8::1") && blocked("2001:db8:ffff::"), "documentation");
        for ip in ["2606:4700:4700::1111", "2001:db9::1", "fbff::1", "fe7f::1"] {
            assert!(!blocked(ip), "{ip}");
        }
    }

    #[test]
    fn ipv4_hidden_in_ipv6_is_judged_by_the_ipv4_address() {
        for ip in [
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::ffff:192.168.1.1",
            "::ffff:172.16.0.1",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:0001::",
            "2002:c0a8:0101::1",
        ] {
            assert!(blocked(ip), "{ip}");
        }
        assert!(!blocked("::ffff:8.8.8.8"));
        assert!(!blocked("64:ff9b::808:808"));
        assert!(!blocked("2002:0808:0808::1"));
    }
}
