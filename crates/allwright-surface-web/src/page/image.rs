//! The size of a screenshot, read from its header: `browsingContext.captureScreenshot` answers
//! the image alone, and callers report its width and height.

/// The width and height of a PNG (its IHDR chunk, PNG specification section 11.2.2) or a JPEG
/// (its first start-of-frame segment, ITU T.81 annex B.2.2), or `None` for anything else.
pub fn image_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.starts_with(PNG_SIGNATURE) {
        // Signature (8), chunk length (4), "IHDR" (4), then width and height, big-endian.
        if bytes.get(12..16)? != b"IHDR" {
            return None;
        }
        let width = u32::from_be_bytes(bytes.get(16..20)?.try_into().ok()?);
        let height = u32::from_be_bytes(bytes.get(20..24)?.try_into().ok()?);
        return Some((width, height));
    }
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    // Segments follow the start-of-image marker: 0xFF, a marker byte, then (for all but the
    // standalone markers) a two-byte length that counts itself.
    let mut position = 2;
    while position + 4 <= bytes.len() {
        if bytes[position] != 0xFF {
            return None;
        }
        let marker = bytes[position + 1];
        if marker == 0xFF {
            // Fill bytes before a marker.
            position += 1;
            continue;
        }
        if (0xD0..=0xD9).contains(&marker) || marker == 0x01 {
            position += 2;
            continue;
        }
        let length = usize::from(u16::from_be_bytes([
            bytes[position + 2],
            bytes[position + 3],
        ]));
        // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
        let is_start_of_frame =
            (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_start_of_frame {
            // Length (2), precision (1), then height and width, big-endian.
            let height = u16::from_be_bytes([*bytes.get(position + 5)?, *bytes.get(position + 6)?]);
            let width = u16::from_be_bytes([*bytes.get(position + 7)?, *bytes.get(position + 8)?]);
            return Some((u32::from(width), u32::from(height)));
        }
        if length < 2 {
            return None;
        }
        position += 2 + length;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_and_jpeg_dimensions_are_read_from_their_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
        png.extend_from_slice(&985u32.to_be_bytes());
        png.extend_from_slice(&700u32.to_be_bytes());
        png.extend_from_slice(&[8, 6, 0, 0, 0]);
        assert_eq!(image_dimensions(&png), Some((985, 700)));

        // SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        jpeg.extend_from_slice(&[0; 14]);
        jpeg.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03]);
        assert_eq!(image_dimensions(&jpeg), Some((640, 480)));

        assert_eq!(image_dimensions(b"GIF89a"), None);
        assert_eq!(
            image_dimensions(&png[..18]),
            None,
            "a cut header is no size"
        );
        assert_eq!(
            image_dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]),
            None
        );
    }
}
