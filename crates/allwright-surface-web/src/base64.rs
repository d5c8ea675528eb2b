//! Standard base64 (RFC 4648, section 4, with padding), the encoding BiDi uses for binary data:
//! screenshots (`browsingContext.captureScreenshot` answers `data`) and extension archives
//! (`webExtension.install` with `{type: "base64"}`). Two small functions do not justify a
//! dependency.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let first = chunk[0];
        let second = chunk.get(1).copied().unwrap_or(0);
        let third = chunk.get(2).copied().unwrap_or(0);
        let group = (u32::from(first) << 16) | (u32::from(second) << 8) | u32::from(third);
        for (position, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if position <= chunk.len() {
                text.push(char::from(ALPHABET[((group >> shift) & 63) as usize]));
            } else {
                text.push('=');
            }
        }
    }
    text
}

/// Decodes base64 text; ASCII whitespace is skipped (some encoders wrap lines). Anything else
/// outside the alphabet, or a length that is not a whole number of groups, is an error.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let mut group = 0u32;
    let mut digits = 0u32;
    let mut padding = 0u32;
    for character in text.bytes() {
        if character.is_ascii_whitespace() {
            continue;
        }
        let digit = match character {
            b'A'..=b'Z' => character - b'A',
            b'a'..=b'z' => character - b'a' + 26,
            b'0'..=b'9' => character - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                0
            }
            other => return Err(format!("byte {other:#04x} is not base64")),
        };
        if padding > 0 && character != b'=' {
            return Err("base64 data continues after its padding".to_owned());
        }
        group = (group << 6) | u32::from(digit);
        digits += 1;
        if digits == 4 {
            let decoded = [(group >> 16) as u8, (group >> 8) as u8, group as u8];
            let keep = 3usize.saturating_sub(padding as usize);
            bytes.extend_from_slice(&decoded[..keep]);
            group = 0;
            digits = 0;
        }
    }
    if digits != 0 || padding > 2 {
        return Err("base64 data ends in the middle of a group".to_owned());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4648_test_vectors_round_trip() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(decode(encoded), Ok(plain.as_bytes().to_vec()));
        }
        let all_bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all_bytes)), Ok(all_bytes));
    }

    #[test]
    fn broken_base64_is_an_error_not_a_panic() {
        assert!(decode("Zm9").is_err());
        assert!(decode("Zm9v!").is_err());
        assert!(decode("Zg==Zg==").is_err());
        assert_eq!(decode("Zm9v\nYmFy"), Ok(b"foobar".to_vec()));
    }
}
