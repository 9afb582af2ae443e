//! The store's own folders (`pad.db-blobs/`, its `tmp/`, the folder of the database for the
//! reserve file) and the files in them, reached without ever following a symbolic link.
//!
//! Whoever may write in those folders can put anything there, and swap it between a check and a
//! use. So every step is taken relative to the handle of a folder opened before, the last component
//! of a name is never followed (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`), a file is opened without
//! blocking (a FIFO would hang the opener) and checked to be a regular file through its own handle.
//! What is not what the store makes (a link, a folder where a file should be, a device) is an
//! [`Oddity`]: left alone and reported, never deleted or written through.
//!
//! The folder that holds the database is where the user put it, reached as its path says, links
//! and all: a data directory on another disk, linked from the home directory, is a choice.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// What a name in a store folder is, when it is not what the store makes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Oddity {
    /// A symbolic link, with where it points when that can be read.
    Link(Option<PathBuf>),
    /// A folder where a file belongs.
    Folder,
    /// A file where a folder belongs.
    File,
    /// A FIFO, socket or device.
    Special,
    /// A name the store never gives in that folder.
    UnknownName,
}

impl fmt::Display for Oddity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Link(Some(target)) => {
                write!(f, "is a symbolic link (to {})", target.display())
            }
            Self::Link(None) => f.write_str("is a symbolic link"),
            Self::Folder => f.write_str("is a folder where the store keeps a file"),
            Self::File => f.write_str("is a file where the store keeps a folder"),
            Self::Special => f.write_str("is a FIFO, socket or device, not a file"),
            Self::UnknownName => f.write_str("has a name the store never gives"),
        }
    }
}

/// Something found in a store folder that the store did not make there: reported, left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unexpected {
    pub path: PathBuf,
    pub what: Oddity,
}

impl fmt::Display for Unexpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}; the store never follows, writes or deletes what it did not make, so it was left \
             alone: move it out of the store's folders",
            self.path.display(),
            self.what
        )
    }
}

/// Why a name could not be used.
#[derive(Debug)]
pub enum Refused {
    /// It is not what the store makes there (reported with its path by the caller).
    Odd(Oddity),
    Io(io::Error),
}

impl From<io::Error> for Refused {
    fn from(err: io::Error) -> Self {
        Self::Io(err)
    }
}

/// What a name in a folder is, looked at without following it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Missing,
    /// A regular file of this many bytes; `id` tells it from another file put under its name.
    File {
        bytes: u64,
        id: FileId,
    },
    Folder,
    Other(Oddity),
}

/// A file's identity on its file system (device and inode where there are such things).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId(u64, u64);

/// A folder opened once; the names in it are looked up relative to this handle.
#[derive(Debug)]
pub struct Folder {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    /// Where it is, for messages (and, off Unix, for every step).
    path: PathBuf,
}

impl Folder {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where `name` in this folder is, for messages.
    pub fn join(&self, name: impl AsRef<OsStr>) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// A regular file by that name, or what is there instead.
    pub fn expect_file(&self, name: &OsStr) -> io::Result<Found> {
        Ok(match self.lookup(name)? {
            Found::Folder => Found::Other(Oddity::Folder),
            other => other,
        })
    }

    /// The folder `name` in this one, never reached through a link; `None` when there is none and
    /// `create` is false.
    pub fn folder(&self, name: &OsStr, create: bool) -> Result<Option<Self>, Refused> {
        if create {
            // Whatever is there already (or why it cannot be made) is found out below.
            let _ = self.make_folder(name);
        }
        match self.open_folder(name) {
            Ok(folder) => Ok(Some(folder)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => match self.lookup(name)? {
                Found::Folder | Found::Missing => Err(Refused::Io(e)),
                Found::File { .. } => Err(Refused::Odd(Oddity::File)),
                Found::Other(oddity) => Err(Refused::Odd(oddity)),
            },
        }
    }

    /// Removes the regular file `name`; false when there was none. Anything else there is refused
    /// and stays.
    pub fn remove_file(&self, name: &OsStr) -> Result<bool, Refused> {
        match self.expect_file(name)? {
            Found::Missing => Ok(false),
            Found::File { .. } => match self.unlink(name) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
                Err(e) => Err(Refused::Io(e)),
            },
            Found::Folder => Err(Refused::Odd(Oddity::Folder)),
            Found::Other(oddity) => Err(Refused::Odd(oddity)),
        }
    }

    /// Removes `name` only while it still is the file `id`: a name swapped since it was looked at
    /// stays.
    pub fn remove_if_still(&self, name: &OsStr, id: FileId) -> io::Result<bool> {
        match self.lookup(name)? {
            Found::File { id: now, .. } if now == id => self.unlink(name).map(|()| true),
            _ => Ok(false),
        }
    }
}

#[cfg(unix)]
mod imp {
    use std::os::fd::{AsFd as _, OwnedFd};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};

    use super::{File, FileId, Folder, Found, Oddity, OsStr, OsString, Path, PathBuf, Refused, io};

    /// Flags every open of a name in a store folder carries.
    fn no_follow() -> OFlags {
        OFlags::NOFOLLOW | OFlags::CLOEXEC
    }

    #[allow(
        clippy::unnecessary_cast,
        reason = "the field types differ between platforms"
    )]
    fn id_of(stat: &rustix::fs::Stat) -> FileId {
        FileId(stat.st_dev as u64, stat.st_ino as u64)
    }

    fn found(folder: &Folder, name: &OsStr, stat: &rustix::fs::Stat) -> Found {
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Found::File {
                bytes: u64::try_from(stat.st_size).unwrap_or(0),
                id: id_of(stat),
            },
            FileType::Directory => Found::Folder,
            FileType::Symlink => Found::Other(Oddity::Link(
                rustix::fs::readlinkat(&folder.fd, name, Vec::new())
                    .ok()
                    .map(|target| {
                        PathBuf::from(OsString::from(
                            String::from_utf8_lossy(target.as_bytes()).into_owned(),
                        ))
                    }),
            )),
            _ => Found::Other(Oddity::Special),
        }
    }

    impl Folder {
        /// The folder at `path`, as the user named it: links on the way are followed.
        pub fn open_path(path: &Path) -> io::Result<Self> {
            let fd = rustix::fs::open(
                path,
                OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Self {
                fd,
                path: path.to_owned(),
            })
        }

        pub(super) fn open_folder(&self, name: &OsStr) -> io::Result<Self> {
            let fd: OwnedFd = rustix::fs::openat(
                &self.fd,
                name,
                OFlags::DIRECTORY | OFlags::RDONLY | no_follow(),
                Mode::empty(),
            )?;
            Ok(Self {
                fd,
                path: self.join(name),
            })
        }

        pub(super) fn make_folder(&self, name: &OsStr) -> io::Result<()> {
            rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777))?;
            Ok(())
        }

        pub fn lookup(&self, name: &OsStr) -> io::Result<Found> {
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => Ok(found(self, name, &stat)),
                Err(rustix::io::Errno::NOENT) => Ok(Found::Missing),
                Err(e) => Err(e.into()),
            }
        }

        /// Opens the regular file `name` (for writing too if `write`, creating it if `create`),
        /// never through a link and without blocking on a FIFO; its own handle says it is a
        /// regular file.
        pub fn open_file(&self, name: &OsStr, write: bool, create: bool) -> Result<File, Refused> {
            let mut flags = no_follow() | OFlags::NONBLOCK;
            flags |= if write { OFlags::RDWR } else { OFlags::RDONLY };
            if create {
                flags |= OFlags::CREATE;
            }
            let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => fd,
                Err(rustix::io::Errno::NOENT) => {
                    return Err(Refused::Io(io::ErrorKind::NotFound.into()));
                }
                // A link (ELOOP), a folder (EISDIR), a socket (ENXIO), …: say which.
                Err(e) => {
                    return Err(match self.lookup(name)? {
                        Found::Other(oddity) => Refused::Odd(oddity),
                        Found::Folder => Refused::Odd(Oddity::Folder),
                        Found::File { .. } | Found::Missing => Refused::Io(e.into()),
                    });
                }
            };
            let stat = rustix::fs::fstat(&fd).map_err(io::Error::from)?;
            match FileType::from_raw_mode(stat.st_mode) {
                FileType::RegularFile => {}
                FileType::Directory => return Err(Refused::Odd(Oddity::Folder)),
                _ => return Err(Refused::Odd(Oddity::Special)),
            }
            Ok(File::from(fd))
        }

        /// A new file `name`, which must not exist in any form.
        pub fn create_new(&self, name: &OsStr) -> io::Result<File> {
            let fd = rustix::fs::openat(
                &self.fd,
                name,
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | no_follow(),
                Mode::from_raw_mode(0o666),
            )?;
            Ok(File::from(fd))
        }

        /// The identity of an open file, to compare with what a name holds now.
        pub fn id_of(file: &File) -> io::Result<FileId> {
            Ok(id_of(&rustix::fs::fstat(file.as_fd())?))
        }

        pub(super) fn unlink(&self, name: &OsStr) -> io::Result<()> {
            rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
            Ok(())
        }

        /// Renames `name` here to `to_name` in `to` (both handles, no path walked again).
        pub fn rename(&self, name: &OsStr, to: &Self, to_name: &OsStr) -> io::Result<()> {
            rustix::fs::renameat(&self.fd, name, &to.fd, to_name)?;
            Ok(())
        }

        /// The names in this folder.
        pub fn names(&self) -> io::Result<Vec<OsString>> {
            use std::os::unix::ffi::OsStrExt as _;
            let mut names = Vec::new();
            for entry in rustix::fs::Dir::read_from(&self.fd)? {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    names.push(OsStr::from_bytes(name).to_owned());
                }
            }
            Ok(names)
        }

        /// Makes the names in this folder durable.
        pub fn sync(&self) {
            let _ = rustix::fs::fsync(&self.fd);
        }

        /// Bytes an unprivileged writer may still write on this folder's file system.
        pub fn free_bytes(&self) -> Option<u64> {
            let stat = rustix::fs::fstatvfs(&self.fd).ok()?;
            Some(stat.f_bavail.saturating_mul(stat.f_frsize))
        }
    }
}

/// Off Unix, the same checks by path: a name swapped between a check and its use is not caught
/// there, but nothing is followed or removed that was found to be a link.
#[cfg(not(unix))]
mod imp {
    use super::{File, FileId, Folder, Found, Oddity, OsStr, OsString, Path, Refused, io};

    fn found(meta: &std::fs::Metadata, path: &Path) -> Found {
        let kind = meta.file_type();
        if kind.is_symlink() {
            Found::Other(Oddity::Link(std::fs::read_link(path).ok()))
        } else if kind.is_dir() {
            Found::Folder
        } else if kind.is_file() {
            Found::File {
                bytes: meta.len(),
                id: FileId(0, 0),
            }
        } else {
            Found::Other(Oddity::Special)
        }
    }

    impl Folder {
        pub fn open_path(path: &Path) -> io::Result<Self> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::other("not a folder"));
            }
            Ok(Self {
                path: path.to_owned(),
            })
        }

        pub(super) fn open_folder(&self, name: &OsStr) -> io::Result<Self> {
            let path = self.join(name);
            match found(&std::fs::symlink_metadata(&path)?, &path) {
                Found::Folder => Ok(Self { path }),
                _ => Err(io::Error::other("not a folder")),
            }
        }

        pub(super) fn make_folder(&self, name: &OsStr) -> io::Result<()> {
            std::fs::create_dir(self.join(name))
        }

        pub fn lookup(&self, name: &OsStr) -> io::Result<Found> {
            let path = self.join(name);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) => Ok(found(&meta, &path)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Found::Missing),
                Err(e) => Err(e),
            }
        }

        pub fn open_file(&self, name: &OsStr, write: bool, create: bool) -> Result<File, Refused> {
            match self.lookup(name)? {
                Found::File { .. } => {}
                Found::Missing if create => {}
                Found::Missing => {
                    return Err(Refused::Io(io::ErrorKind::NotFound.into()));
                }
                Found::Folder => return Err(Refused::Odd(Oddity::Folder)),
                Found::Other(oddity) => return Err(Refused::Odd(oddity)),
            }
            Ok(std::fs::OpenOptions::new()
                .read(true)
                .write(write)
                .create(create)
                .truncate(false)
                .open(self.join(name))?)
        }

        pub fn create_new(&self, name: &OsStr) -> io::Result<File> {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(self.join(name))
        }

        pub fn id_of(_file: &File) -> io::Result<FileId> {
            Ok(FileId(0, 0))
        }

        pub(super) fn unlink(&self, name: &OsStr) -> io::Result<()> {
            std::fs::remove_file(self.join(name))
        }

        pub fn rename(&self, name: &OsStr, to: &Self, to_name: &OsStr) -> io::Result<()> {
            std::fs::rename(self.join(name), to.join(to_name))
        }

        pub fn names(&self) -> io::Result<Vec<OsString>> {
            std::fs::read_dir(&self.path)?
                .map(|entry| entry.map(|e| e.file_name()))
                .collect()
        }

        pub fn sync(&self) {}

        pub fn free_bytes(&self) -> Option<u64> {
            None
        }
    }
}
