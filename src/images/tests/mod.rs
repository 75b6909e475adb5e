//! Network code tested against a loopback server in the test process; nothing here reaches
//! the internet. The fetcher's allowance for the test server exists only in test builds.

mod fetch;
mod server;

use std::time::Duration;

use super::http::Limits;

/// Short limits so timeouts are tested in well under a second or two.
const QUICK: Limits = Limits {
    connect: Duration::from_secs(1),
    read: Duration::from_millis(400),
    deadline: Duration::from_millis(1500),
    max_bytes: 64 << 10,
    max_redirects: 3,
};

/// `length` bytes that start like a JPEG file.
fn jpeg(length: usize) -> Vec<u8> {
    let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0];
    bytes.resize(length.max(4), 0x42);
    bytes
}
