//! Files are byte sequences. C allows any byte in comments, string
//! literals and character constants (a Latin-1 `é` in a comment is one
//! byte, 0xE9, not UTF-8); polyfold keeps every such byte exactly, and
//! writes the line ending the file uses.
//!
//! - [`decode`]: a byte that is not part of valid UTF-8 becomes one
//!   *stand-in* character, U+10FF00 plus the byte, from the last
//!   private-use plane (no C text uses it). The rest of polyfold sees a
//!   `str`; a stand-in inside a comment or a literal is opaque text like
//!   any other character. A file that already holds a stand-in character
//!   and an invalid byte is refused (the two could not be told apart).
//! - [`restore`]: the stand-ins of a text back to their bytes, where
//!   polyfold writes a file or standard output.
//! - [`with_line_endings`]: in a file whose every line ends in CRLF, the
//!   lines polyfold adds end in CRLF too.

use std::borrow::Cow;

/// The first stand-in character's code point: byte `b` (0x80..=0xFF)
/// stands as `STAND_IN_BASE + b`.
const STAND_IN_BASE: u32 = 0x10_FF00;

/// Whether `c` is a stand-in, and for which byte.
fn stand_in_byte(c: char) -> Option<u8> {
    let v = c as u32;
    (STAND_IN_BASE + 0x80..=STAND_IN_BASE + 0xFF)
        .contains(&v)
        .then(|| (v - STAND_IN_BASE) as u8)
}

/// The text of `bytes`: valid UTF-8 as it is, each other byte as its
/// stand-in. `Err` (a message) when the bytes are not UTF-8 and already
/// hold a stand-in character.
pub fn decode(bytes: Vec<u8>) -> Result<String, String> {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return Ok(text),
        Err(e) => e.into_bytes(),
    };
    let mut text = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        if chunk.valid().chars().any(|c| stand_in_byte(c).is_some()) {
            return Err(
                "it holds bytes that are not UTF-8 and characters U+10FF80..U+10FFFF, \
                 which polyfold uses to keep such bytes"
                    .into(),
            );
        }
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            let c = char::from_u32(STAND_IN_BASE + u32::from(*b)).expect("a valid code point");
            text.push(c);
        }
    }
    Ok(text)
}

/// `text` with its stand-ins back as the bytes they stand for.
pub fn restore(text: &str) -> Cow<'_, [u8]> {
    if !text.chars().any(|c| stand_in_byte(c).is_some()) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match stand_in_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// Whether every line break of `source` is CRLF (and there is one).
fn crlf_only(source: &str) -> bool {
    let bytes = source.as_bytes();
    let mut any = false;
    for (k, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            if k == 0 || bytes[k - 1] != b'\r' {
                return false;
            }
            any = true;
        }
    }
    any
}

/// `output` (polyfold's text for `source`) with the line endings of
/// `source`: when every line of `source` ends in CRLF, each line break of
/// `output` that is a bare LF becomes CRLF (the ones polyfold added).
/// Otherwise `output` as it is.
pub fn with_line_endings<'a>(source: &str, output: &'a str) -> Cow<'a, str> {
    if !crlf_only(source) || crlf_only(output) {
        return Cow::Borrowed(output);
    }
    let mut out = String::with_capacity(output.len() + output.len() / 32);
    let mut previous = None;
    for c in output.chars() {
        if c == '\n' && previous != Some('\r') {
            out.push('\r');
        }
        out.push(c);
        previous = Some(c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_bytes_round_trip_and_utf8_is_untouched() {
        // `/* café */` in Latin-1, a raw 0xFF in a string, a lone UTF-8
        // continuation byte.
        let bytes = b"/* caf\xe9 */ char *s = \"\xff\"; int x; /* \x80 \xc3\xa9 */".to_vec();
        let text = decode(bytes.clone()).expect("decodes");
        // Three invalid bytes, one real `é` (two bytes, valid UTF-8).
        assert_eq!(
            text.chars().filter(|c| stand_in_byte(*c).is_some()).count(),
            3
        );
        assert!(text.contains('é'));
        assert_eq!(restore(&text).as_ref(), bytes.as_slice());
        let plain = "int x; /* é */".to_string();
        assert_eq!(decode(plain.clone().into_bytes()).unwrap(), plain);
        assert!(matches!(restore(&plain), Cow::Borrowed(_)));
    }

    #[test]
    fn a_file_with_a_stand_in_character_and_an_invalid_byte_is_refused() {
        let mut bytes = "/* \u{10FFE9} */".as_bytes().to_vec();
        assert!(
            decode(bytes.clone()).is_ok(),
            "valid UTF-8 is kept as it is"
        );
        bytes.push(0xE9);
        assert!(decode(bytes).is_err());
    }

    #[test]
    fn added_lines_take_the_file_s_crlf() {
        let source = "int a;\r\nint b;\r\n";
        let output = "int a;\r\nint c; /* new */\nint b;\r\n";
        assert_eq!(
            with_line_endings(source, output),
            "int a;\r\nint c; /* new */\r\nint b;\r\n"
        );
        // An LF file, or a mixed one, keeps the output as it is.
        assert_eq!(with_line_endings("a\nb\n", "a\nc\nb\n"), "a\nc\nb\n");
        assert_eq!(with_line_endings("a\r\nb\n", "a\r\nc\nb\n"), "a\r\nc\nb\n");
        // No line break at all: nothing to follow.
        assert_eq!(with_line_endings("int a;", "int b;\n"), "int b;\n");
    }
}
