//! A message nib sends, as JSON text. A screenshot's answer is almost all base64, which JSON
//! writes as it is; serde_json would still test every byte of it for escapes and grow its buffer
//! several times over (a fifth of a repeated screenshot's time in the server, measured with
//! perf). So image data that needs no escaping is taken out, the rest of the message is
//! serialised, and the data is copied back in its place into a buffer sized once. The bytes are
//! the ones serde_json writes for the whole message.

use memchr::memmem;
use rmcp::model::{ContentBlock, JsonRpcMessage, ServerJsonRpcMessage, ServerResult};

/// Image data shorter than this is serialised with the rest: the splice is for pictures.
const SPLICED_FROM_BYTES: usize = 16 * 1024;

/// What stands for an image's data while the rest is serialised. serde_json writes its NULs
/// escaped, so its JSON text is `PLACEHOLDER_JSON`; a message whose other strings hold the same
/// text is found out by counting, and serialised whole instead.
const PLACEHOLDER: &str = "\0nib:image\0";
const PLACEHOLDER_JSON: &[u8] = b"\"\\u0000nib:image\\u0000\"";

/// `message` as JSON text, with room for one more byte (a line's end) so that adding it does
/// not copy the text again.
pub fn to_json(mut message: ServerJsonRpcMessage) -> serde_json::Result<Vec<u8>> {
    let taken = take_images(&mut message);
    if taken.is_empty() {
        return whole(&message);
    }
    let rest = serde_json::to_vec(&message)?;
    let found: Vec<usize> = memmem::find_iter(&rest, PLACEHOLDER_JSON).collect();
    if found.len() != taken.len() {
        // Another string of the message reads like the placeholder.
        put_back(&mut message, taken);
        return whole(&message);
    }
    let data_bytes: usize = taken.iter().map(|(_, data)| data.len() + 2).sum();
    let mut json = Vec::with_capacity(rest.len() - taken.len() * PLACEHOLDER_JSON.len() + data_bytes + 1);
    let mut from = 0;
    for (at, (_, data)) in found.into_iter().zip(&taken) {
        json.extend_from_slice(&rest[from..at]);
        json.push(b'"');
        json.extend_from_slice(data.as_bytes());
        json.push(b'"');
        from = at + PLACEHOLDER_JSON.len();
    }
    json.extend_from_slice(&rest[from..]);
    Ok(json)
}

/// `message` serialised by serde_json alone.
fn whole(message: &ServerJsonRpcMessage) -> serde_json::Result<Vec<u8>> {
    let mut json = serde_json::to_vec(message)?;
    json.reserve_exact(1);
    Ok(json)
}

/// The content of a tool's answer, where images are.
fn tool_content(message: &mut ServerJsonRpcMessage) -> Option<&mut Vec<ContentBlock>> {
    match message {
        JsonRpcMessage::Response(response) => match &mut response.result {
            ServerResult::CallToolResult(result) => Some(&mut result.content),
            _ => None,
        },
        _ => None,
    }
}

/// Takes out the data of each image worth splicing, in the order it is serialised, with the
/// place in the content it came from.
fn take_images(message: &mut ServerJsonRpcMessage) -> Vec<(usize, String)> {
    let Some(content) = tool_content(message) else { return Vec::new() };
    let mut taken = Vec::new();
    for (index, block) in content.iter_mut().enumerate() {
        if let ContentBlock::Image(image) = block
            && image.data.len() >= SPLICED_FROM_BYTES
            && written_as_it_is(&image.data)
        {
            taken.push((index, std::mem::replace(&mut image.data, PLACEHOLDER.to_owned())));
        }
    }
    taken
}

fn put_back(message: &mut ServerJsonRpcMessage, taken: Vec<(usize, String)>) {
    let Some(content) = tool_content(message) else { return };
    for (index, data) in taken {
        if let Some(ContentBlock::Image(image)) = content.get_mut(index) {
            image.data = data;
        }
    }
}

/// Whether JSON writes `text` inside quotes as it is: no control character, quote or backslash
/// (serde_json escapes nothing else). Folded in blocks so the compiler can test many bytes at
/// once, unlike a search that stops at the first.
fn written_as_it_is(text: &str) -> bool {
    text.as_bytes().chunks(256).all(|block| {
        !block.iter().fold(false, |escaped, &byte| escaped | (byte < 0x20) | (byte == b'"') | (byte == b'\\'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolResult, ErrorData, RequestId};

    fn answer(content: Vec<ContentBlock>) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::response(
            ServerResult::CallToolResult(CallToolResult::success(content)),
            RequestId::Number(7),
        )
    }

    /// Text in base64's alphabet, `length` long, different at every place.
    fn base64_like(length: usize, seed: u64) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut state = seed | 1;
        (0..length)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ALPHABET[(state % 64) as usize] as char
            })
            .collect()
    }

    /// Checks `message` comes out as serde_json writes it, and says whether images were taken
    /// out to be spliced.
    fn same_as_serde_json(message: ServerJsonRpcMessage) -> bool {
        let expected = serde_json::to_vec(&message).unwrap();
        let spliced = !take_images(&mut message.clone()).is_empty();
        let json = to_json(message).unwrap();
        assert_eq!(String::from_utf8(json.clone()).unwrap(), String::from_utf8(expected).unwrap());
        assert!(json.capacity() > json.len(), "room for the line's end");
        spliced
    }

    #[test]
    fn pictures_are_spliced_into_the_bytes_serde_json_writes() {
        let picture = base64_like(100_000, 3) + "==";
        assert!(same_as_serde_json(answer(vec![ContentBlock::image(picture.clone(), "image/png")])));
        // Text before, between and after, and a small image serialised in place.
        assert!(same_as_serde_json(answer(vec![
            ContentBlock::text("{\"a\": \"b\\n\"}\u{1}é"),
            ContentBlock::image(picture, "image/png"),
            ContentBlock::image("iVBORw0KGgo=", "image/png"),
            ContentBlock::image(base64_like(SPLICED_FROM_BYTES, 9), "image/jpeg"),
            ContentBlock::text("end"),
        ])));
    }

    #[test]
    fn data_that_needs_escapes_or_reads_like_the_placeholder_is_serialised_whole() {
        let mut escaped = base64_like(40_000, 5);
        escaped.insert(20_000, '"');
        assert!(!same_as_serde_json(answer(vec![ContentBlock::image(escaped.clone(), "image/png")])));
        escaped.replace_range(20_000..20_001, "\n");
        assert!(!same_as_serde_json(answer(vec![ContentBlock::image(escaped, "image/png")])));
        // A text holding the placeholder: counted, and the whole message serialised again.
        assert!(same_as_serde_json(answer(vec![
            ContentBlock::text(PLACEHOLDER),
            ContentBlock::image(base64_like(40_000, 11), "image/png"),
        ])));
    }

    #[test]
    fn messages_without_pictures_are_serde_jsons() {
        assert!(!same_as_serde_json(answer(vec![ContentBlock::text(base64_like(50_000, 2))])));
        assert!(!same_as_serde_json(ServerJsonRpcMessage::error(
            ErrorData::invalid_params("no such node", None),
            Some(RequestId::Number(1))
        )));
    }

    #[test]
    fn the_escape_test_sees_every_byte() {
        let plain = base64_like(1000, 4);
        assert!(written_as_it_is(&plain) && written_as_it_is("") && written_as_it_is("é…"));
        for at in [0, 255, 256, 999] {
            for byte in ['"', '\\', '\n', '\u{0}', '\u{1f}'] {
                let mut text = plain.clone();
                text.replace_range(at..at + 1, &byte.to_string());
                assert!(!written_as_it_is(&text), "{byte:?} at {at}");
            }
        }
    }
}
