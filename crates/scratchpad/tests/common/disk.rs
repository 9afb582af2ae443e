//! A small file system of a test's own (a tmpfs it mounts), to fill to the last byte.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted for the test, unmounted when it ends.
pub struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// A tmpfs of this size. Where this process may not mount file systems, the test fails, unless
    /// `SCRATCHPAD_TEST_NO_MOUNT=1` says to skip these tests (`None`, with a loud message).
    pub fn mount(megabytes: u64) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            assert!(
                std::env::var_os("SCRATCHPAD_TEST_NO_MOUNT").is_some(),
                "cannot mount a tmpfs here (not root, or no mount permission): the full-disk tests \
                 need one. Run the tests as root, or set SCRATCHPAD_TEST_NO_MOUNT=1 to skip them"
            );
            eprintln!(
                "\n!!! SKIPPED: cannot mount a tmpfs, and SCRATCHPAD_TEST_NO_MOUNT is set !!!\n"
            );
            return None;
        }
        Some(Self { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a filler file until not one byte is left, as another program would.
    pub fn fill(&self) -> PathBuf {
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![7u8; 64 * 1024];
        let mut size = block.len();
        while size > 0 {
            match file.write(&block[..size]) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => size /= 2,
            }
        }
        let _ = file.sync_all();
        assert_eq!(self.free_bytes(), 0, "the filler left room");
        path
    }

    /// Bytes free on the file system, as `df` counts them.
    pub fn free_bytes(&self) -> u64 {
        let out = Command::new("df")
            .args(["--output=avail", "-B1"])
            .arg(self.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .and_then(|line| line.trim().parse().ok())
            .unwrap_or(u64::MAX)
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}
