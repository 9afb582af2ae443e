//! The files of a SQLite store as a user meets them from a shell: links and strangers in the
//! store's folders, a disk another program filled, a `put` that is interrupted.

use crate::common::{Pad, log};

/// Regression: a symbolic link in place of `pad.db-blobs/tmp` made `scratchpad gc` delete every
/// file where it pointed. It is left alone and named, and `check` fails on it.
#[test]
fn gc_from_the_shell_leaves_a_linked_folder_alone_and_says_so() {
    let pad = Pad::new();
    pad.ok_stdin(&["put", "log"], log(60_000).as_bytes());
    let victim = tempfile::tempdir().unwrap();
    let precious = victim.path().join("4242-0-7.part");
    std::fs::write(&precious, "precious").unwrap();
    let temp = pad.dir.path().join("pad.db-blobs").join("tmp");
    std::fs::remove_dir_all(&temp).unwrap();
    std::os::unix::fs::symlink(victim.path(), &temp).unwrap();

    let out = pad.ok(&["gc"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious");
    let named = format!(
        "NOT MADE BY THE STORE: {} is a symbolic link",
        temp.display()
    );
    assert!(out.contains(&named), "{out}");
    assert!(out.contains("left alone"), "{out}");
    let json = pad.run(&["--json", "gc"]).ok().json();
    assert!(
        json["unexpected"][0]
            .as_str()
            .is_some_and(|line| line.contains("symbolic link")),
        "{json}"
    );
    let check = pad.run(&["check"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(check.stdout.contains(&named), "{}", check.stdout);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "precious");
    // Reading what is stored is not affected.
    let read = pad.ok(&["read", "log", "--lines", "50005-50005"]);
    assert!(read.contains("ERROR step 50005"), "{read}");
}
