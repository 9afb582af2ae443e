//! Side files: large content kept next to the database, one file per blob, named by its blake3
//! hash (`pad.db-blobs/<hash>`), the database holding its chunk index. SQLite would write every
//! byte twice (the write-ahead log, then the checkpoint); a side file is written once, while it
//! streams in, and a duplicate is never written at all.
//!
//! A file is written as `tmp/<random>.part` under an exclusive lock held until its blob is committed
//! or abandoned, then renamed to its hash inside the commit's transaction. So a collection pass,
//! which takes the store's write lock too, sees every file either unnamed and locked (being
//! written), unnamed and unlocked (its writer is gone: removed at once), or named (kept while a
//! blob refers to it). Paths are relative to the database, so a store directory copied elsewhere
//! still opens.

use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// The side files of one store.
#[derive(Debug)]
pub struct SideFiles {
    dir: PathBuf,
    /// The file read last, kept open: reads of one entry come chunk after chunk.
    open: Mutex<Option<(String, std::sync::Arc<File>)>>,
}

/// Names of temporary files written by this process, in a sequence.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

impl SideFiles {
    /// The side files of the database at `db`: `<db>-blobs/`.
    pub fn for_database(db: &Path) -> Self {
        let mut dir = db.as_os_str().to_owned();
        dir.push("-blobs");
        Self {
            dir: PathBuf::from(dir),
            open: Mutex::new(None),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn temp_dir(&self) -> PathBuf {
        self.dir.join("tmp")
    }

    /// Where the content with this hash lives once committed.
    pub fn path(&self, hash: &str) -> PathBuf {
        self.dir.join(hash)
    }

    fn error(&self, what: &str, err: &std::io::Error) -> Error {
        if is_disk_full(err) {
            return Error::DiskFull(self.dir.display().to_string());
        }
        Error::Storage(format!("{what} in {}: {err}", self.dir.display()))
    }

    /// A new temporary file, locked for as long as the returned value lives.
    pub fn create(&self) -> Result<TempFile> {
        let dir = self.temp_dir();
        fs::create_dir_all(&dir)
            .map_err(|e| self.error("cannot create the side-file folder", &e))?;
        let mut random = [0u8; 8];
        let _ = getrandom::fill(&mut random);
        let name = format!(
            "{}-{}-{}.part",
            std::process::id(),
            NEXT_TEMP.fetch_add(1, Ordering::Relaxed),
            u64::from_le_bytes(random)
        );
        let path = dir.join(name);
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| self.error("cannot create a side file", &e))?;
        // Held until the blob is committed or dropped: a collection pass that can take this lock
        // knows the writer is gone.
        file.try_lock().map_err(|e| {
            Error::Storage(format!(
                "cannot lock a new side file {}: {e}",
                path.display()
            ))
        })?;
        Ok(TempFile {
            path,
            file,
            flushed: false,
            dir: self.dir.clone(),
            unsynced: 0,
            writeback: None,
        })
    }

    /// `len` bytes at `offset` of the content with this hash.
    pub fn read(&self, hash: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let file = self.opened(hash)?;
        let mut data = vec![0; usize::try_from(len).unwrap_or(0)];
        read_exact_at(&file, &mut data, offset).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Corrupt(format!(
                    "the side file {} is shorter than its index says (bytes {}–{} are missing)",
                    self.path(hash).display(),
                    offset,
                    offset + len
                ))
            } else {
                self.error("cannot read a side file", &e)
            }
        })?;
        Ok(data)
    }

    fn opened(&self, hash: &str) -> Result<std::sync::Arc<File>> {
        if let Ok(open) = self.open.lock()
            && let Some((open_hash, file)) = open.as_ref()
            && open_hash == hash
        {
            return Ok(std::sync::Arc::clone(file));
        }
        let path = self.path(hash);
        let file = File::open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::Corrupt(format!(
                "the side file {} that holds an entry's content is missing",
                path.display()
            )),
            _ => self.error("cannot open a side file", &e),
        })?;
        let file = std::sync::Arc::new(file);
        if let Ok(mut open) = self.open.lock() {
            *open = Some((hash.to_owned(), std::sync::Arc::clone(&file)));
        }
        Ok(file)
    }

    /// Removes the content with this hash (a no-op if it is gone already).
    pub fn remove(&self, hash: &str) -> Result<()> {
        if let Ok(mut open) = self.open.lock()
            && open
                .as_ref()
                .is_some_and(|(open_hash, _)| open_hash == hash)
        {
            *open = None;
        }
        match fs::remove_file(self.path(hash)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(self.error("cannot remove a side file", &e)),
        }
    }

    /// The hashes of the committed files, with their sizes.
    pub fn committed(&self) -> Result<Vec<(String, u64)>> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.error("cannot list the side files", &e)),
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_hash(&name) {
                out.push((name, entry.metadata().map_or(0, |m| m.len())));
            }
        }
        Ok(out)
    }

    /// Removes temporary files whose writer is gone (their lock is free); returns (files, bytes).
    pub fn remove_abandoned(&self) -> (u64, u64) {
        let Ok(entries) = fs::read_dir(self.temp_dir()) else {
            return (0, 0);
        };
        let (mut files, mut bytes) = (0, 0);
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(file) = File::open(&path) else {
                continue;
            };
            // Our own writers hold their files' locks through other handles, so this fails for
            // them as for other processes' live writers.
            if file.try_lock().is_ok() {
                let size = file.metadata().map_or(0, |m| m.len());
                if fs::remove_file(&path).is_ok() {
                    files += 1;
                    bytes += size;
                }
            }
        }
        (files, bytes)
    }
}

/// Bytes written to a side file between two requests to write it out in the background.
const WRITEBACK_BYTES: u64 = 8 << 20;

/// A side file being written. Dropped without being adopted, it is removed.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    file: File,
    flushed: bool,
    dir: PathBuf,
    /// Bytes written since the last request to write them out.
    unsynced: u64,
    writeback: Option<Writeback>,
}

/// A thread that makes what a side file holds so far durable while its writer goes on reading,
/// hashing and previewing: the flush at the end then waits for the last part only, instead of the
/// disk writing the whole file after the CPU work is done.
#[derive(Debug)]
struct Writeback {
    /// Requests, at most one waiting (a request made while one waits asks for nothing more).
    wake: Option<std::sync::mpsc::SyncSender<()>>,
    /// The first error of a background flush: an error reported once to any handle of the file
    /// must reach the final flush.
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Writeback {
    fn start(file: &File) -> std::io::Result<Self> {
        let file = file.try_clone()?;
        let (wake, requests) = std::sync::mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("side-file writeback".into())
            .spawn(move || {
                while requests.recv().is_ok() {
                    file.sync_data()?;
                }
                Ok(())
            })?;
        Ok(Self {
            wake: Some(wake),
            thread: Some(thread),
        })
    }

    fn request(&self) {
        if let Some(wake) = &self.wake {
            let _ = wake.try_send(());
        }
    }

    /// Waits for the flush under way, if any; its error, if one failed.
    fn finish(&mut self) -> std::io::Result<()> {
        self.wake = None;
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(std::io::Error::other(
                "the side-file writeback thread panicked",
            )),
            None => Ok(()),
        }
    }
}

impl Drop for Writeback {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl TempFile {
    /// A failure to `verb` this file: a full disk, or a storage error naming the file.
    fn error(&self, verb: &str, err: &std::io::Error) -> Error {
        if is_disk_full(err) {
            Error::DiskFull(self.dir.display().to_string())
        } else {
            Error::Storage(format!(
                "cannot {verb} the side file {}: {err}",
                self.path.display()
            ))
        }
    }

    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        self.file
            .write_all(data)
            .map_err(|e| self.error("write", &e))?;
        self.unsynced += data.len() as u64;
        if self.unsynced >= WRITEBACK_BYTES {
            self.unsynced = 0;
            if self.writeback.is_none() {
                // Without the thread, the flush at the end writes everything: slower, as correct.
                self.writeback = Writeback::start(&self.file).ok();
            }
            if let Some(writeback) = &self.writeback {
                writeback.request();
            }
        }
        Ok(())
    }

    /// Makes the content durable (once).
    pub fn flush(&mut self) -> Result<()> {
        if !self.flushed {
            let background = match self.writeback.as_mut() {
                Some(writeback) => writeback.finish(),
                None => Ok(()),
            };
            background
                .and_then(|()| self.file.sync_data())
                .map_err(|e| self.error("flush", &e))?;
            self.flushed = true;
        }
        Ok(())
    }

    /// Names the file by its content's hash; call under the store's write lock. A file already
    /// there holds the same content (its name is its hash) and stays.
    pub fn adopt(mut self, hash: &str) -> Result<()> {
        self.flush()?;
        let target = self.dir.join(hash);
        fs::rename(&self.path, &target).map_err(|e| {
            Error::Storage(format!(
                "cannot name the side file {}: {e}",
                target.display()
            ))
        })?;
        // The name must reach the disk before the database row that refers to it.
        sync_dir(&self.dir);
        // Renamed: nothing left to remove when this value drops.
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// A name of 64 lowercase hex digits.
fn is_hash(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(unix)]
fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) {}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt as _;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// The error a full disk (or quota) gives.
pub fn is_disk_full(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}
