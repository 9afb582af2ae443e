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
//!
//! Nothing in these folders is reached through a symbolic link, and nothing the store did not
//! make there is removed or written (see [`super::folder`]): a link put in place of `tmp/` cannot
//! make a collection pass delete the files it points at.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::folder::{Folder, Found, Refused, Unexpected};
use crate::error::{Error, Result};

/// The folder in `pad.db-blobs/` where files are written before they are named.
const TEMP_FOLDER: &str = "tmp";

/// The side files of one store.
#[derive(Debug)]
pub struct SideFiles {
    /// The folder of the database, as the user named it (links on the way are the user's).
    parent: PathBuf,
    /// `<database file name>-blobs`, in `parent`, never reached through a link.
    name: OsString,
    /// `parent/name`, for messages.
    dir: PathBuf,
    /// The file read last, kept open: reads of one entry come chunk after chunk.
    open: Mutex<Option<(String, Arc<File>)>>,
}

/// What the side-file folders hold.
#[derive(Debug, Default)]
pub struct Survey {
    /// The hashes of the committed files, with their sizes.
    pub committed: Vec<(String, u64)>,
    /// What the store did not make there (left alone).
    pub unexpected: Vec<Unexpected>,
}

/// Names of temporary files written by this process, in a sequence.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Temporary files of this process neither named nor removed yet: what [`remove_unfinished`]
/// removes when the process is told to stop before its writes can end on their own.
static UNFINISHED: Mutex<Vec<Unfinished>> = Mutex::new(Vec::new());

#[derive(Debug)]
struct Unfinished {
    /// The file's number in [`NEXT_TEMP`]'s sequence.
    seq: u64,
    folder: Arc<Folder>,
    name: OsString,
}

/// Removes every temporary file this process is writing, at once: for a process that was told to
/// stop (a signal) and cannot wait for its writes to fail and clean up on their own. Those writes
/// then fail; nothing they wrote is named. Returns how many files were removed.
pub fn remove_unfinished() -> usize {
    let mut unfinished = UNFINISHED.lock().unwrap_or_else(PoisonError::into_inner);
    unfinished
        .drain(..)
        .filter(|file| file.folder.remove_file(&file.name).is_ok_and(|gone| gone))
        .count()
}

impl SideFiles {
    /// The side files of the database at `db`: `<db>-blobs/`.
    pub fn for_database(db: &Path) -> Self {
        let parent = db
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned();
        let mut name = db.file_name().unwrap_or_default().to_owned();
        name.push("-blobs");
        Self {
            dir: parent.join(&name),
            parent,
            name,
            open: Mutex::new(None),
        }
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

    /// What refused a name in the store's folders, as an error of a write.
    fn refused(&self, what: &str, path: PathBuf, refused: Refused) -> Error {
        match refused {
            Refused::Odd(oddity) => {
                Error::Storage(format!("{what}: {}", Unexpected { path, what: oddity }))
            }
            Refused::Io(err) => self.error(what, &err),
        }
    }

    /// The side-file folder; `None` when there is none and `create` is false.
    fn blobs(&self, create: bool) -> Result<Option<Folder>, Refused> {
        Folder::open_path(&self.parent)?.folder(&self.name, create)
    }

    /// A new temporary file, locked for as long as the returned value lives.
    pub fn create(&self) -> Result<TempFile> {
        let what = "cannot make a side file";
        let gone = || Refused::Io(std::io::ErrorKind::NotFound.into());
        let blobs = self
            .blobs(true)
            .and_then(|blobs| blobs.ok_or_else(gone))
            .map_err(|r| self.refused(what, self.dir.clone(), r))?;
        let temp = blobs
            .folder(OsStr::new(TEMP_FOLDER), true)
            .and_then(|temp| temp.ok_or_else(gone))
            .map_err(|r| self.refused(what, blobs.join(TEMP_FOLDER), r))?;
        let (seq, name, file) = self.create_locked(&temp)?;
        let temp = Arc::new(temp);
        UNFINISHED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Unfinished {
                seq,
                folder: Arc::clone(&temp),
                name: name.clone(),
            });
        let file = TempFile {
            seq,
            name,
            temp,
            blobs,
            file,
            flushed: false,
            unsynced: 0,
            writeback: None,
        };
        Ok(file)
    }

    /// A new temporary file in `temp`, locked, still under its name: its number, name and handle.
    ///
    /// A file is visible before its writer locks it, and a collection pass in another process
    /// that finds it unlocked in that moment takes it for abandoned and removes it; the write would
    /// then fail when it names its file. So the writer checks, once it holds the lock, that the
    /// name still is its file (no pass can take it from then on), and starts again with a new
    /// name when it is not, or when a pass holds the lock.
    fn create_locked(&self, temp: &Folder) -> Result<(u64, OsString, File)> {
        /// Tries before giving up (count): each lost race means a pass removed a file this very
        /// moment, which does not happen many times in a row.
        const ATTEMPTS: usize = 16;
        for _ in 0..ATTEMPTS {
            let mut random = [0u8; 8];
            let _ = getrandom::fill(&mut random);
            let seq = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
            let name = OsString::from(format!(
                "{}-{seq}-{}.part",
                std::process::id(),
                u64::from_le_bytes(random)
            ));
            let file = temp
                .create_new(&name)
                .map_err(|e| self.error("cannot create a side file", &e))?;
            match file.try_lock() {
                Ok(()) => {}
                // A pass holds it and is removing it.
                Err(std::fs::TryLockError::WouldBlock) => continue,
                Err(std::fs::TryLockError::Error(e)) => {
                    let _ = temp.remove_file(&name);
                    return Err(Error::Storage(format!(
                        "cannot lock a new side file {}: {e}",
                        temp.join(&name).display()
                    )));
                }
            }
            // Where a file has no identity to compare, no pass removes temporary files either.
            let Ok(id) = Folder::id_of(&file) else {
                return Ok((seq, name, file));
            };
            match temp.lookup(&name) {
                Ok(Found::File { id: now, .. }) if now == id => return Ok((seq, name, file)),
                // Removed by a pass before the lock was taken.
                Ok(_) => {}
                Err(e) => return Err(self.error("cannot look up a new side file", &e)),
            }
        }
        Err(Error::Storage(format!(
            "cannot make a side file in {}: collection passes kept removing new files; try again",
            self.dir.display()
        )))
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

    fn opened(&self, hash: &str) -> Result<Arc<File>> {
        if let Ok(open) = self.open.lock()
            && let Some((open_hash, file)) = open.as_ref()
            && open_hash == hash
        {
            return Ok(Arc::clone(file));
        }
        let path = self.path(hash);
        let missing = || {
            Error::Corrupt(format!(
                "the side file {} that holds an entry's content is missing",
                path.display()
            ))
        };
        // Something the store did not make stands where its content should be: the content is
        // not readable, as if damaged, and `check` names the entries hit.
        let odd = |path: PathBuf, what| Error::Corrupt(Unexpected { path, what }.to_string());
        let blobs = match self.blobs(false) {
            Ok(Some(blobs)) => blobs,
            Ok(None) => return Err(missing()),
            Err(Refused::Odd(what)) => return Err(odd(self.dir.clone(), what)),
            Err(Refused::Io(e)) => return Err(self.error("cannot open the side-file folder", &e)),
        };
        let file = match blobs.open_file(OsStr::new(hash), false, false) {
            Ok(file) => file,
            Err(Refused::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(missing());
            }
            Err(Refused::Io(e)) => return Err(self.error("cannot open a side file", &e)),
            Err(Refused::Odd(what)) => return Err(odd(path, what)),
        };
        let file = Arc::new(file);
        if let Ok(mut open) = self.open.lock() {
            *open = Some((hash.to_owned(), Arc::clone(&file)));
        }
        Ok(file)
    }

    /// Removes the content with this hash (a no-op if it is gone already). Whatever else stands
    /// under its name stays, for a collection pass and `check` to report.
    pub fn remove(&self, hash: &str) -> Result<()> {
        if let Ok(mut open) = self.open.lock()
            && open
                .as_ref()
                .is_some_and(|(open_hash, _)| open_hash == hash)
        {
            *open = None;
        }
        let removed = self.blobs(false).and_then(|blobs| match blobs {
            Some(blobs) => blobs.remove_file(OsStr::new(hash)),
            None => Ok(false),
        });
        match removed {
            Ok(_) | Err(Refused::Odd(_)) => Ok(()),
            Err(Refused::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(Refused::Io(e)) => Err(self.error("cannot remove a side file", &e)),
        }
    }

    /// The committed files, and whatever the store did not make in its side-file folders. Changes
    /// nothing.
    pub fn survey(&self) -> Result<Survey> {
        let mut survey = Survey::default();
        let blobs = match self.blobs(false) {
            Ok(Some(blobs)) => blobs,
            Ok(None) => return Ok(survey),
            Err(Refused::Odd(what)) => {
                survey.unexpected.push(Unexpected {
                    path: self.dir.clone(),
                    what,
                });
                return Ok(survey);
            }
            Err(Refused::Io(e)) => return Err(self.error("cannot open the side-file folder", &e)),
        };
        let names = blobs
            .names()
            .map_err(|e| self.error("cannot list the side files", &e))?;
        for name in names {
            let path = blobs.join(&name);
            let hash = name.to_str().filter(|name| is_hash(name));
            if name == TEMP_FOLDER {
                match blobs.folder(&name, false) {
                    Ok(Some(temp)) => survey_temp(&temp, &mut survey.unexpected),
                    Ok(None) | Err(Refused::Io(_)) => {}
                    Err(Refused::Odd(what)) => survey.unexpected.push(Unexpected { path, what }),
                }
                continue;
            }
            match blobs.expect_file(&name) {
                Ok(Found::File { bytes, .. }) => match hash {
                    Some(hash) => survey.committed.push((hash.to_owned(), bytes)),
                    None => survey.unexpected.push(Unexpected {
                        path,
                        what: super::folder::Oddity::UnknownName,
                    }),
                },
                Ok(Found::Missing) | Err(_) => {}
                Ok(Found::Folder) => survey.unexpected.push(Unexpected {
                    path,
                    what: super::folder::Oddity::Folder,
                }),
                Ok(Found::Other(what)) => survey.unexpected.push(Unexpected { path, what }),
            }
        }
        Ok(survey)
    }

    /// Removes temporary files whose writer is gone (their lock is free); returns (files, bytes).
    /// Only regular files with the names the store gives are touched; what else is there is
    /// reported by [`SideFiles::survey`].
    pub fn remove_abandoned(&self) -> (u64, u64) {
        let Ok(Some(blobs)) = self.blobs(false) else {
            return (0, 0);
        };
        let Ok(Some(temp)) = blobs.folder(OsStr::new(TEMP_FOLDER), false) else {
            return (0, 0);
        };
        let Ok(names) = temp.names() else {
            return (0, 0);
        };
        let (mut files, mut bytes) = (0, 0);
        for name in names {
            if !name.to_str().is_some_and(is_temp_name) {
                continue;
            }
            let Ok(file) = temp.open_file(&name, false, false) else {
                continue;
            };
            // Our own writers hold their files' locks through other handles, so this fails for
            // them as for other processes' live writers.
            if file.try_lock().is_err() {
                continue;
            }
            let size = file.metadata().map_or(0, |m| m.len());
            // Removed only while the name still is the file whose lock was free.
            let Ok(id) = Folder::id_of(&file) else {
                continue;
            };
            if temp.remove_if_still(&name, id).is_ok_and(|gone| gone) {
                files += 1;
                bytes += size;
            }
        }
        (files, bytes)
    }
}

/// What the temporary folder holds that the store did not make there.
fn survey_temp(temp: &Folder, unexpected: &mut Vec<Unexpected>) {
    let Ok(names) = temp.names() else {
        return;
    };
    for name in names {
        let path = temp.join(&name);
        if !name.to_str().is_some_and(is_temp_name) {
            unexpected.push(Unexpected {
                path,
                what: super::folder::Oddity::UnknownName,
            });
            continue;
        }
        match temp.expect_file(&name) {
            Ok(Found::File { .. } | Found::Missing) | Err(_) => {}
            Ok(Found::Folder) => unexpected.push(Unexpected {
                path,
                what: super::folder::Oddity::Folder,
            }),
            Ok(Found::Other(what)) => unexpected.push(Unexpected { path, what }),
        }
    }
}

/// Bytes written to a side file between two requests to write it out in the background.
const WRITEBACK_BYTES: u64 = 8 << 20;

/// A side file being written. Dropped without being adopted, it is removed.
#[derive(Debug)]
pub struct TempFile {
    /// Its number in this process's sequence.
    seq: u64,
    name: OsString,
    /// The folder it is written in, and the one it is named in: both opened when it was made, so
    /// that a link swapped in for either since is never followed.
    temp: Arc<Folder>,
    blobs: Folder,
    file: File,
    flushed: bool,
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
    fn path(&self) -> PathBuf {
        self.temp.join(&self.name)
    }

    /// A failure to `verb` this file: a full disk, or a storage error naming the file.
    fn error(&self, verb: &str, err: &std::io::Error) -> Error {
        if is_disk_full(err) {
            Error::DiskFull(self.blobs.path().display().to_string())
        } else {
            Error::Storage(format!(
                "cannot {verb} the side file {}: {err}",
                self.path().display()
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

    /// `len` bytes written at `offset`: a chunk taken out of this file to be stored elsewhere.
    pub fn read_at(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut data = vec![0; usize::try_from(len).unwrap_or(0)];
        read_exact_at(&self.file, &mut data, offset).map_err(|e| self.error("read", &e))?;
        Ok(data)
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
    /// there holds the same content (its name is its hash) and is replaced; anything else there
    /// (a link, a folder) is refused and stays.
    pub fn adopt(mut self, hash: &str) -> Result<()> {
        self.flush()?;
        let target = OsStr::new(hash);
        let cannot = |err: &dyn std::fmt::Display| {
            Error::Storage(format!(
                "cannot name the side file {}: {err}",
                self.blobs.join(hash).display()
            ))
        };
        match self.blobs.expect_file(target) {
            Ok(Found::Missing | Found::File { .. }) => {}
            Ok(Found::Folder) => {
                return Err(cannot(&Unexpected {
                    path: self.blobs.join(hash),
                    what: super::folder::Oddity::Folder,
                }));
            }
            Ok(Found::Other(what)) => {
                return Err(cannot(&Unexpected {
                    path: self.blobs.join(hash),
                    what,
                }));
            }
            Err(e) => return Err(cannot(&e)),
        }
        {
            // Under the lock, so that a stop removing unfinished files at this moment either
            // removed this one (and the write fails) or finds it named.
            let mut unfinished = UNFINISHED.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(at) = unfinished.iter().position(|file| file.seq == self.seq) else {
                return Err(Error::Storage(
                    "the write was stopped before its content was saved; nothing was stored".into(),
                ));
            };
            self.temp
                .rename(&self.name, &self.blobs, target)
                .map_err(|e| cannot(&e))?;
            unfinished.swap_remove(at);
        }
        // The name must reach the disk before the database row that refers to it.
        self.blobs.sync();
        // Renamed: nothing left to remove when this value drops.
        self.name = OsString::new();
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.name.is_empty() {
            return;
        }
        let mut unfinished = UNFINISHED.lock().unwrap_or_else(PoisonError::into_inner);
        // Not listed any more: a stop removed it already.
        if let Some(at) = unfinished.iter().position(|file| file.seq == self.seq) {
            unfinished.swap_remove(at);
            let _ = self.temp.remove_file(&self.name);
        }
    }
}

/// A name [`SideFiles::create`] gives: `<pid>-<sequence>-<random>.part`.
fn is_temp_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".part") else {
        return false;
    };
    let parts: Vec<&str> = stem.split('-').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

/// A name of 64 lowercase hex digits.
fn is_hash(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

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
