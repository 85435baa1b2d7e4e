//! The session's content store: one append-only file, `objects/pack`,
//! holding every stored object as a record
//!
//! ```text
//! OBJ <sha-256 in hex> <length>\n<bytes>\n
//! ```
//!
//! One file instead of one file per object because creating a file is the
//! dearest thing a checkpoint did: on a well-used ext4 volume most of an
//! iteration's time went to finding a free inode for four new little
//! files (messages, the conversation index, the manifest). An append is
//! one `write`, and an object already stored is found in memory instead of
//! with a `stat`.
//!
//! A record is appended with a single `write`, but a process killed in the
//! middle of one can leave it cut short, and a restored session appends
//! after it. So reading never trusts the layout blindly: a record whose
//! header or closing newline is not where it should be is skipped by
//! searching for the next `\nOBJ `, and every object read is checked
//! against its hash by the caller. Nothing already written is ever
//! truncated or rewritten.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::StateError;

const MAGIC: &[u8] = b"OBJ ";
/// `OBJ `, 64 hex digits, a space, up to 20 digits and a newline.
const MAX_HEADER: usize = 4 + 64 + 1 + 20 + 1;

type Digest = [u8; 32];

#[derive(Debug, Clone, Copy)]
struct Location {
    offset: u64,
    len: u64,
}

pub struct Pack {
    path: PathBuf,
    /// Opened (and the index built) on first use.
    reader: Option<std::fs::File>,
    writer: Option<std::fs::File>,
    index: HashMap<Digest, Location>,
}

impl Pack {
    pub fn new(path: &Path) -> Self {
        Pack {
            path: path.to_path_buf(),
            reader: None,
            writer: None,
            index: HashMap::new(),
        }
    }

    pub fn contains(&mut self, hash: &str) -> Result<bool, StateError> {
        self.open_for_reading()?;
        Ok(digest(hash).is_some_and(|key| self.index.contains_key(&key)))
    }

    /// The bytes stored under `hash`, if the pack has them (unchecked:
    /// the caller compares them with the hash).
    pub fn read(&mut self, hash: &str) -> Result<Option<Vec<u8>>, StateError> {
        self.open_for_reading()?;
        let Some(location) = digest(hash).and_then(|key| self.index.get(&key).copied()) else {
            return Ok(None);
        };
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        let len = usize::try_from(location.len)
            .map_err(|_| StateError::Invalid(format!("the stored object {hash} is too large")))?;
        let mut bytes = vec![0; len];
        reader
            .read_exact_at(&mut bytes, location.offset)
            .map_err(|err| StateError::io(&self.path, err))?;
        Ok(Some(bytes))
    }

    /// Appends `bytes` under `hash` (which the caller computed).
    pub fn append(&mut self, hash: &str, bytes: &[u8]) -> Result<(), StateError> {
        let key = digest(hash)
            .ok_or_else(|| StateError::Invalid(format!("{hash:?} is not a SHA-256 digest")))?;
        self.open_for_reading()?;
        if self.writer.is_none() {
            if let Some(folder) = self.path.parent() {
                super::private_dir(folder)?;
            }
            let mut writer = std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .mode(0o600)
                .open(&self.path)
                .map_err(|err| StateError::io(&self.path, err))?;
            // A record cut short by a dying process: start on a line of
            // our own, or reading would never find the next header.
            if !ends_with_newline(&writer).map_err(|err| StateError::io(&self.path, err))? {
                writer
                    .write_all(b"\n")
                    .map_err(|err| StateError::io(&self.path, err))?;
            }
            self.writer = Some(writer);
        }
        let Some(writer) = &mut self.writer else {
            return Ok(());
        };
        let header = format!("OBJ {hash} {}\n", bytes.len());
        let mut record = Vec::with_capacity(header.len() + bytes.len() + 1);
        record.extend_from_slice(header.as_bytes());
        record.extend_from_slice(bytes);
        record.push(b'\n');
        writer
            .write_all(&record)
            .map_err(|err| StateError::io(&self.path, err))?;
        // O_APPEND put the record at the end, wherever that was.
        let end = writer
            .stream_position()
            .map_err(|err| StateError::io(&self.path, err))?;
        let offset = end - 1 - bytes.len() as u64;
        self.index.insert(
            key,
            Location {
                offset,
                len: bytes.len() as u64,
            },
        );
        if self.reader.is_none() {
            self.reader = std::fs::File::open(&self.path).ok();
        }
        Ok(())
    }

    /// How many objects the pack holds.
    pub fn count(&mut self) -> Result<usize, StateError> {
        self.open_for_reading()?;
        Ok(self.index.len())
    }

    fn open_for_reading(&mut self) -> Result<(), StateError> {
        if self.reader.is_some() || self.writer.is_some() {
            return Ok(());
        }
        match std::fs::File::open(&self.path) {
            Ok(file) => {
                self.index = scan(&file).map_err(|err| StateError::io(&self.path, err))?;
                self.reader = Some(file);
                Ok(())
            }
            // No pack yet: nothing stored, or a session of the loose-file
            // format.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(StateError::io(&self.path, err)),
        }
    }
}

/// Builds the index by walking the headers (skipping over the bytes), and
/// steps over damaged records to the next good one.
fn scan(file: &std::fs::File) -> std::io::Result<HashMap<Digest, Location>> {
    let mut index = HashMap::new();
    let size = file.metadata()?.len();
    let mut cursor = Cursor {
        reader: BufReader::with_capacity(64 * 1024, file),
        at: 0,
    };
    let mut position = 0u64;
    let mut header = Vec::with_capacity(MAX_HEADER);
    while position < size {
        cursor.go_to(position)?;
        header.clear();
        cursor.read_line(&mut header)?;
        let record = parse_header(&header).filter(|&(_, len)| {
            let data = position + header.len() as u64;
            data.checked_add(len).is_some_and(|end| end < size)
        });
        let Some((key, len)) = record else {
            position = cursor.next_record(position + 1, size)?;
            continue;
        };
        let data = position + header.len() as u64;
        cursor.go_to(data + len)?;
        if cursor.read_byte()? != b'\n' {
            position = cursor.next_record(position + 1, size)?;
            continue;
        }
        index.insert(key, Location { offset: data, len });
        position = data + len + 1;
    }
    Ok(index)
}

/// A buffered reader that knows where it is, so moving a short way
/// forward stays inside its buffer: small records are read without a
/// system call each.
struct Cursor<'a> {
    reader: BufReader<&'a std::fs::File>,
    at: u64,
}

impl Cursor<'_> {
    fn go_to(&mut self, position: u64) -> std::io::Result<()> {
        let delta = i64::try_from(position)
            .ok()
            .zip(i64::try_from(self.at).ok())
            .map(|(to, from)| to - from);
        match delta {
            Some(delta) => self.reader.seek_relative(delta)?,
            None => {
                self.reader.seek(SeekFrom::Start(position))?;
            }
        }
        self.at = position;
        Ok(())
    }

    fn read_line(&mut self, line: &mut Vec<u8>) -> std::io::Result<()> {
        let read = (&mut self.reader)
            .take(MAX_HEADER as u64)
            .read_until(b'\n', line)?;
        self.at += read as u64;
        Ok(())
    }

    fn read_byte(&mut self) -> std::io::Result<u8> {
        let mut byte = [0u8; 1];
        self.reader.read_exact(&mut byte)?;
        self.at += 1;
        Ok(byte[0])
    }

    /// The position of the next record header at or after `from` (just
    /// after a newline), or the end of the file.
    fn next_record(&mut self, from: u64, size: u64) -> std::io::Result<u64> {
        const NEEDLE: &[u8] = b"\nOBJ ";
        let mut start = from.saturating_sub(1);
        let mut block = vec![0u8; 64 * 1024];
        while start < size {
            self.go_to(start)?;
            let want = usize::try_from((size - start).min(block.len() as u64)).unwrap_or(0);
            self.reader.read_exact(&mut block[..want])?;
            self.at += want as u64;
            if let Some(found) = block[..want]
                .windows(NEEDLE.len())
                .position(|window| window == NEEDLE)
            {
                return Ok(start + found as u64 + 1);
            }
            if want < NEEDLE.len() {
                break;
            }
            // Overlap so a needle across two blocks is still found.
            start += (want - (NEEDLE.len() - 1)) as u64;
        }
        Ok(size)
    }
}

fn ends_with_newline(file: &std::fs::File) -> std::io::Result<bool> {
    let size = file.metadata()?.len();
    if size == 0 {
        return Ok(true);
    }
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, size - 1)?;
    Ok(last[0] == b'\n')
}

fn parse_header(line: &[u8]) -> Option<(Digest, u64)> {
    let text = std::str::from_utf8(line.strip_prefix(MAGIC)?.strip_suffix(b"\n")?).ok()?;
    let (hash, len) = text.split_once(' ')?;
    Some((digest(hash)?, len.parse().ok()?))
}

fn digest(hash: &str) -> Option<Digest> {
    let bytes = hash.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let text = std::str::from_utf8(pair).ok()?;
        *slot = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::snapshot::hash_bytes;

    fn store(pack: &mut Pack, text: &str) -> String {
        let hash = hash_bytes(text.as_bytes());
        pack.append(&hash, text.as_bytes()).unwrap();
        hash
    }

    #[test]
    fn objects_come_back_in_this_process_and_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack");
        let mut pack = Pack::new(&path);
        assert!(!pack.contains(&hash_bytes(b"a")).unwrap());
        let a = store(&mut pack, "a");
        let empty = store(&mut pack, "");
        let lines = store(&mut pack, "two\nlines\nOBJ lookalike\n");
        assert_eq!(pack.read(&a).unwrap().unwrap(), b"a");
        let mut reopened = Pack::new(&path);
        assert!(reopened.contains(&lines).unwrap());
        assert_eq!(reopened.read(&empty).unwrap().unwrap(), b"");
        assert_eq!(
            reopened.read(&lines).unwrap().unwrap(),
            b"two\nlines\nOBJ lookalike\n"
        );
        assert_eq!(reopened.read(&hash_bytes(b"b")).unwrap(), None);
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_record_cut_short_is_skipped_and_later_ones_still_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack");
        let mut pack = Pack::new(&path);
        let first = store(&mut pack, "first");
        let cut = store(&mut pack, &"x".repeat(1000));
        drop(pack);
        // The process died in the middle of the second record.
        let size = std::fs::metadata(&path).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(size - 500).unwrap();
        drop(file);
        // A restored session appends after the damage.
        let mut pack = Pack::new(&path);
        assert!(!pack.contains(&cut).unwrap());
        let after = store(&mut pack, "after");
        let again = store(&mut pack, &"x".repeat(1000));
        assert_eq!(again, cut);
        let mut reopened = Pack::new(&path);
        assert_eq!(reopened.read(&first).unwrap().unwrap(), b"first");
        assert_eq!(reopened.read(&after).unwrap().unwrap(), b"after");
        assert_eq!(
            reopened.read(&cut).unwrap().unwrap(),
            "x".repeat(1000).as_bytes()
        );
    }

    #[test]
    fn garbage_between_records_is_stepped_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack");
        let mut pack = Pack::new(&path);
        let first = store(&mut pack, "first");
        drop(pack);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(&vec![b'z'; 200_000]).unwrap();
        file.write_all(b"OBJ nothex 3\nabc\n").unwrap();
        drop(file);
        let mut pack = Pack::new(&path);
        let last = store(&mut pack, "last");
        let mut reopened = Pack::new(&path);
        assert_eq!(reopened.read(&first).unwrap().unwrap(), b"first");
        assert_eq!(reopened.read(&last).unwrap().unwrap(), b"last");
        assert_eq!(reopened.index.len(), 2);
    }

    #[test]
    fn many_records_small_and_larger_than_the_buffer_are_all_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack");
        let mut pack = Pack::new(&path);
        let texts: Vec<String> = (0..2000)
            .map(|n| match n % 100 {
                0 => format!("{n}{}", "y".repeat(150_000)),
                _ => format!("record {n}"),
            })
            .collect();
        let hashes: Vec<String> = texts.iter().map(|text| store(&mut pack, text)).collect();
        let mut reopened = Pack::new(&path);
        assert_eq!(reopened.count().unwrap(), texts.len());
        for (text, hash) in texts.iter().zip(&hashes) {
            assert_eq!(reopened.read(hash).unwrap().unwrap(), text.as_bytes());
        }
    }
}
