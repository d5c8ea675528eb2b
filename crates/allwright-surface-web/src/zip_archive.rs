//! A zip archive of a folder, with every file stored (not compressed), for
//! `webExtension.install` with `{type: "base64", value}` when the browser runs on another
//! machine and cannot read an extension folder by path. Firefox reads such an archive as an
//! `.xpi`. Storing is enough: the archive crosses the network once per session, and a deflate
//! encoder would be a dependency for a few hundred kilobytes.
//!
//! The format is PKWARE's APPNOTE.TXT: a local file header and the data per file, then the
//! central directory and its end record. No ZIP64, so at most 65,535 files and 4 GiB.

use std::path::{Path, PathBuf};

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zip requires per file.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// The files under `folder`, recursively, sorted, as (archive name with `/`, path).
fn files_under(folder: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(folder).unwrap_or(&path);
                let name = relative
                    .components()
                    .map(|part| part.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                found.push((name, path));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// 1980-01-01 00:00 in MS-DOS date and time: a fixed stamp keeps the archive reproducible.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = (1 << 5) | 1;
/// General purpose flag bit 11: file names are UTF-8.
const UTF8_NAMES: u16 = 1 << 11;

/// Builds the archive of every file under `folder`, in memory.
pub fn zip_folder(folder: &Path) -> std::io::Result<Vec<u8>> {
    let too_large = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{} is too large for a zip without ZIP64 ({what})",
                folder.display()
            ),
        )
    };
    let files = files_under(folder)?;
    let entry_count = u16::try_from(files.len()).map_err(|_| too_large("files"))?;
    let mut archive = Vec::new();
    let mut central_directory = Vec::new();
    for (name, path) in &files {
        let data = std::fs::read(path)?;
        let size = u32::try_from(data.len()).map_err(|_| too_large("a file"))?;
        let offset = u32::try_from(archive.len()).map_err(|_| too_large("the archive"))?;
        let name_length = u16::try_from(name.len()).map_err(|_| too_large("a name"))?;
        let crc = crc32(&data);
        // Local file header.
        archive.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        archive.extend_from_slice(&20u16.to_le_bytes());
        archive.extend_from_slice(&UTF8_NAMES.to_le_bytes());
        archive.extend_from_slice(&0u16.to_le_bytes()); // stored
        archive.extend_from_slice(&DOS_TIME.to_le_bytes());
        archive.extend_from_slice(&DOS_DATE.to_le_bytes());
        archive.extend_from_slice(&crc.to_le_bytes());
        archive.extend_from_slice(&size.to_le_bytes());
        archive.extend_from_slice(&size.to_le_bytes());
        archive.extend_from_slice(&name_length.to_le_bytes());
        archive.extend_from_slice(&0u16.to_le_bytes());
        archive.extend_from_slice(name.as_bytes());
        archive.extend_from_slice(&data);
        // Its central directory record.
        central_directory.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central_directory.extend_from_slice(&20u16.to_le_bytes());
        central_directory.extend_from_slice(&20u16.to_le_bytes());
        central_directory.extend_from_slice(&UTF8_NAMES.to_le_bytes());
        central_directory.extend_from_slice(&0u16.to_le_bytes());
        central_directory.extend_from_slice(&DOS_TIME.to_le_bytes());
        central_directory.extend_from_slice(&DOS_DATE.to_le_bytes());
        central_directory.extend_from_slice(&crc.to_le_bytes());
        central_directory.extend_from_slice(&size.to_le_bytes());
        central_directory.extend_from_slice(&size.to_le_bytes());
        central_directory.extend_from_slice(&name_length.to_le_bytes());
        central_directory.extend_from_slice(&[0; 8]); // extra, comment, disk, internal attributes
        central_directory.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central_directory.extend_from_slice(&offset.to_le_bytes());
        central_directory.extend_from_slice(name.as_bytes());
    }
    let directory_offset = u32::try_from(archive.len()).map_err(|_| too_large("the archive"))?;
    let directory_size =
        u32::try_from(central_directory.len()).map_err(|_| too_large("the directory"))?;
    archive.extend_from_slice(&central_directory);
    archive.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    archive.extend_from_slice(&[0; 4]); // this disk, the directory's disk
    archive.extend_from_slice(&entry_count.to_le_bytes());
    archive.extend_from_slice(&entry_count.to_le_bytes());
    archive.extend_from_slice(&directory_size.to_le_bytes());
    archive.extend_from_slice(&directory_offset.to_le_bytes());
    archive.extend_from_slice(&0u16.to_le_bytes());
    Ok(archive)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u16_at(bytes: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([bytes[at], bytes[at + 1]])
    }

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    }

    #[test]
    fn crc32_matches_the_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn a_folder_becomes_a_stored_zip_whose_directory_names_every_file() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        std::fs::write(folder.path().join("manifest.json"), b"{\"name\":\"x\"}").expect("write");
        std::fs::create_dir_all(folder.path().join("content")).expect("mkdir");
        std::fs::write(folder.path().join("content/a.js"), b"1;").expect("write");
        let archive = zip_folder(folder.path()).expect("zip");
        assert_eq!(u32_at(&archive, 0), 0x0403_4b50);
        let end = archive.len() - 22;
        assert_eq!(u32_at(&archive, end), 0x0605_4b50);
        assert_eq!(u16_at(&archive, end + 10), 2, "two entries");
        let mut at = u32_at(&archive, end + 16) as usize;
        let mut names = Vec::new();
        for _ in 0..2 {
            assert_eq!(u32_at(&archive, at), 0x0201_4b50);
            let name_length = u16_at(&archive, at + 28) as usize;
            let local = u32_at(&archive, at + 42) as usize;
            let size = u32_at(&archive, at + 20) as usize;
            let name = String::from_utf8(archive[at + 46..at + 46 + name_length].to_vec())
                .expect("UTF-8 name");
            // The local header points at the same name, followed by the stored bytes.
            let data_start = local + 30 + u16_at(&archive, local + 26) as usize;
            assert_eq!(
                crc32(&archive[data_start..data_start + size]),
                u32_at(&archive, at + 16)
            );
            names.push(name);
            at += 46 + name_length;
        }
        assert_eq!(names, ["content/a.js", "manifest.json"]);
    }
}
