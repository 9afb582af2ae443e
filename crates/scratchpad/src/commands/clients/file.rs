//! A client's configuration file as one command reads and writes it: through any symbolic links,
//! under a lock that other scratchpad commands on the same file wait for, replaced in one step with
//! its permissions and owner kept, and never when the user made it read-only.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// Links followed before giving up (a loop of links never ends otherwise), as the kernel's own limit.
const MAX_LINKS: usize = 40;
/// How long a command waits for another one editing the same file.
const LOCK_WAIT: Duration = Duration::from_secs(30);
/// Pause between two tries of the lock.
const LOCK_RETRY: Duration = Duration::from_millis(20);

/// Where a configuration file is.
#[derive(Debug)]
pub struct ConfigFile {
    /// As the user would write it.
    pub shown: PathBuf,
    /// What is read and written: the file at the end of any symbolic links, so a linked dotfile
    /// stays linked.
    pub real: PathBuf,
    /// `shown` is a symbolic link.
    pub linked: bool,
}

impl ConfigFile {
    /// Follows `shown` through its links. A link whose target is missing names the file to create,
    /// which needs the target's directory to exist.
    pub fn locate(shown: PathBuf) -> anyhow::Result<Self> {
        let mut real = shown.clone();
        let mut linked = false;
        for _ in 0..MAX_LINKS {
            match std::fs::symlink_metadata(&real) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let to = std::fs::read_link(&real)
                        .with_context(|| format!("cannot read the link {}", real.display()))?;
                    real = match real.parent() {
                        Some(dir) if to.is_relative() => dir.join(to),
                        _ => to,
                    };
                    linked = true;
                }
                Ok(_) => {
                    return Ok(Self {
                        shown,
                        real,
                        linked,
                    });
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    if linked && !real.parent().is_some_and(Path::is_dir) {
                        anyhow::bail!(
                            "{} is a symbolic link to {}, whose directory does not exist; create \
                             the directory (or fix the link) and run again; nothing was changed",
                            shown.display(),
                            real.display()
                        );
                    }
                    return Ok(Self {
                        shown,
                        real,
                        linked,
                    });
                }
                Err(err) => {
                    return Err(err).with_context(|| format!("cannot read {}", shown.display()));
                }
            }
        }
        anyhow::bail!(
            "{} is a loop of symbolic links; fix the links and run again; nothing was changed",
            shown.display()
        )
    }

    /// The file's text; `None` when it does not exist.
    pub fn read(&self) -> anyhow::Result<Option<String>> {
        match std::fs::read(&self.real) {
            Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
                anyhow::anyhow!(
                    "{} is not UTF-8 text; nothing was changed",
                    self.shown.display()
                )
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err).with_context(|| format!("cannot read {}", self.shown.display())),
        }
    }

    /// Refuses a file the user cannot or chose not to write: replacing it by a rename would succeed
    /// in a writable directory, and silently undo their choice.
    pub fn check_writable(&self) -> anyhow::Result<()> {
        let meta = match std::fs::metadata(&self.real) {
            Ok(meta) => meta,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(err) => {
                return Err(err).with_context(|| format!("cannot read {}", self.shown.display()));
            }
        };
        let denied = meta.permissions().readonly()
            || OpenOptions::new()
                .append(true)
                .open(&self.real)
                .is_err_and(|err| err.kind() == std::io::ErrorKind::PermissionDenied);
        if denied {
            anyhow::bail!(
                "{} is read-only; nothing was changed. If scratchpad should edit it, make it \
                 writable (chmod u+w {}) and run again; --dry-run shows the change without writing",
                self.shown.display(),
                crate::speak::shell_word(&self.real.display().to_string())
            );
        }
        Ok(())
    }

    /// Holds other scratchpad commands on this file off until the guard is dropped, so that two
    /// read-modify-writes never interleave and lose one another's change. `create_dir`: make the
    /// file's directory if it is missing (for a command that creates the file); otherwise a
    /// missing directory needs no lock, as there is no file to edit.
    pub fn lock(&self, create_dir: bool) -> anyhow::Result<Option<Lock>> {
        let path = sibling(&self.real, ".", ".scratchpad-lock");
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            if !create_dir {
                return Ok(None);
            }
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        }
        let started = Instant::now();
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open the lock file {}", path.display()))?;
            match file.try_lock() {
                Ok(()) if still_at(&file, &path) => return Ok(Some(Lock { file, path })),
                // The holder removed the file as it let go: lock the one at that path now.
                Ok(()) => continue,
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(err)) => {
                    return Err(err).with_context(|| format!("cannot lock {}", path.display()));
                }
            }
            if started.elapsed() > LOCK_WAIT {
                anyhow::bail!(
                    "another scratchpad command has been editing {} for {} s (it holds {}); run \
                     again when it is done; nothing was changed",
                    self.shown.display(),
                    LOCK_WAIT.as_secs(),
                    path.display()
                );
            }
            std::thread::sleep(LOCK_RETRY);
        }
    }

    /// Copies `text` next to the file the user named (not next to a link's target, which may be in
    /// a repository of dotfiles: a backup holds secrets), readable only as the file itself is.
    pub fn backup(&self, text: &str) -> anyhow::Result<PathBuf> {
        let backup = backup_path(&self.shown);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&backup)
            .with_context(|| format!("cannot write the backup {}", backup.display()))?;
        keep_access(&self.real, &file);
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write the backup {}", backup.display()))?;
        Ok(backup)
    }

    /// Replaces the file in one step (a temporary file in its directory renamed over it), keeping
    /// its permissions and owner: a client reading it at that moment sees the old text or the new,
    /// never half of one. `read` is the text the edit was made from; when the file no longer holds
    /// it (the client itself wrote it meanwhile, without our lock) nothing is written.
    pub fn replace(&self, read: Option<&str>, text: &str) -> anyhow::Result<()> {
        let dir = self
            .real
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        let (temporary, mut file) = temporary_in(&self.real)?;
        let written = (|| {
            keep_access(&self.real, &file);
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            if self.read()?.as_deref() != read {
                anyhow::bail!(
                    "{} was changed by another program while scratchpad edited it; nothing was \
                     written; run the command again",
                    self.shown.display()
                );
            }
            std::fs::rename(&temporary, &self.real)?;
            Ok(())
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written.with_context(|| format!("cannot write {}", self.shown.display()))?;
        // The rename is durable once the directory is; a failure here loses nothing already read.
        #[cfg(unix)]
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }

    pub fn remove(&self) -> anyhow::Result<()> {
        std::fs::remove_file(&self.real)
            .with_context(|| format!("cannot remove {}", self.shown.display()))
    }
}

/// Held while a command edits a file; removes its lock file when dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held, so a command that opened it meanwhile sees it gone
        // (`still_at`) and locks the next one. Windows cannot remove an open file; it stays there.
        #[cfg(unix)]
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Whether `file` is still the one at `path` (not removed by the previous holder).
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(held), Ok(named)) => held.dev() == named.dev() && held.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_at(_file: &File, _path: &Path) -> bool {
    true
}

/// `DIR/<prefix>NAME<suffix>` for the file at `path`.
fn sibling(path: &Path, prefix: &str, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!("{prefix}{name}{suffix}"))
}

/// A new file next to `path`, created only by us.
fn temporary_in(path: &Path) -> anyhow::Result<(PathBuf, File)> {
    let mut n = 0_u32;
    loop {
        let temporary = sibling(
            path,
            ".",
            &format!(".scratchpad-{}-{n}.tmp", std::process::id()),
        );
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => return Ok((temporary, file)),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(err) => {
                return Err(err).with_context(|| {
                    format!("cannot create a temporary file {}", temporary.display())
                });
            }
        }
    }
}

/// Gives `file` the permissions (and, where we may, the owner) of the file at `like`, before any
/// text is in it.
fn keep_access(like: &Path, file: &File) {
    let Ok(meta) = std::fs::metadata(like) else {
        return;
    };
    let _ = file.set_permissions(meta.permissions());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    }
}

/// `FILE.scratchpad-backup-20250102T030405Z`, numbered when one of that second exists.
fn backup_path(path: &Path) -> PathBuf {
    let stamp = utc_stamp(std::time::SystemTime::now());
    let mut candidate = sibling(path, "", &format!(".scratchpad-backup-{stamp}"));
    let mut n = 1;
    while candidate.exists() {
        candidate = sibling(path, "", &format!(".scratchpad-backup-{stamp}-{n}"));
        n += 1;
    }
    candidate
}

/// The moment as `YYYYMMDDTHHMMSSZ`.
fn utc_stamp(time: std::time::SystemTime) -> String {
    let ms = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    scratchpad_core::figures::utc_stamp(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamps() {
        let at = |secs| utc_stamp(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
        assert_eq!(at(0), "19700101T000000Z");
        assert_eq!(at(951_782_400), "20000229T000000Z");
        assert_eq!(at(1_735_787_045), "20250102T030405Z");
    }
}
