//! Network providers tested against a loopback server in the test process; nothing here reaches
//! the internet. The fetcher's allowance for the test server exists only in test builds.

mod end_to_end;
mod fetch;
mod openai;
use crate::http::test_server as server;
mod unsplash;

use std::time::Duration;

use crate::http::Limits;

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

/// A small real PNG.
fn png() -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, 2, 2);
    encoder.set_color(png::ColorType::Rgb);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&[200; 12]).unwrap();
    writer.finish().unwrap();
    bytes
}
