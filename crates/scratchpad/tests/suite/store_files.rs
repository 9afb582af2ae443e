//! The files of a SQLite store as a user meets them from a shell: links and strangers in the
//! store's folders, a disk another program filled, a `put` that is interrupted.

use crate::common::disk::SmallDisk;
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

/// Regression: once another program filled the disk to its last byte, every command failed with
/// "disk I/O error", `rm` included, so nothing could free space. Reads need no space, writes say
/// the disk is full and what to do, `rm` and `gc` work and give space back.
#[test]
fn every_command_works_or_says_what_to_do_on_a_disk_another_program_filled() {
    let Some(disk) = SmallDisk::mount(24) else {
        return;
    };
    let pad = Pad {
        store: format!("sqlite://{}/pad.db", disk.path().display()),
        dir: tempfile::tempdir().unwrap(),
    };
    pad.ok(&["write", "plan", "1. reproduce\n2. fix"]);
    pad.ok_stdin(&["put", "log"], log(60_000).as_bytes());
    let filler = disk.fill();

    let read = pad.ok(&["read", "plan", "--raw"]);
    assert_eq!(read, "1. reproduce\n2. fix");
    let lines = pad.ok(&["read", "log", "--lines", "50005-50005"]);
    assert!(lines.contains("ERROR step 50005"), "{lines}");
    let grep = pad.ok(&["read", "log", "--grep", "ERROR"]);
    assert!(grep.contains("60000:"), "{grep}");
    let listed = pad.ok(&["ls"]);
    assert!(
        listed.contains("plan") && listed.contains("log"),
        "{listed}"
    );
    let shown = pad.ok(&["show", "log"]);
    assert!(shown.contains("60,000 lines"), "{shown}");
    assert!(pad.ok(&["search", "reproduce"]).contains("plan"));
    assert!(pad.ok(&["check"]).contains("no damage found"));

    for (args, input) in [
        (&["write", "plan", "changed"][..], None),
        (&["append", "plan", "3. ship"][..], None),
        (&["put", "more"][..], Some(log(30_000))),
    ] {
        let run = match input {
            Some(input) => pad.run_stdin(args, input.as_bytes()),
            None => pad.run(args),
        }
        .fails();
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is full")
                && run.stderr.contains("delete entries")
                && run.stderr.contains("scratchpad ls"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(pad.ok(&["read", "plan", "--raw"]), "1. reproduce\n2. fix");
    // The put that did not fit removed what it had staged.
    let temp = disk.path().join("pad.db-blobs").join("tmp");
    assert_eq!(std::fs::read_dir(&temp).unwrap().count(), 0);

    let free_before = disk.free_bytes();
    pad.ok(&["rm", "log"]);
    assert!(
        disk.free_bytes() > free_before + 1_000_000,
        "rm gave no space back: {free_before} → {} bytes free",
        disk.free_bytes()
    );
    pad.ok(&["gc"]);
    std::fs::remove_file(filler).unwrap();
    pad.ok_stdin(&["put", "log"], log(60_000).as_bytes());
    pad.ok(&["append", "plan", "\n3. ship"]);
    assert!(pad.ok(&["check"]).contains("no damage found"));
}

/// The temporary files in `pad.db-blobs/tmp` and their total size.
fn staged(pad: &Pad) -> (usize, u64) {
    std::fs::read_dir(pad.dir.path().join("pad.db-blobs").join("tmp"))
        .map(|files| {
            files.flatten().fold((0, 0), |(n, bytes), file| {
                (n + 1, bytes + file.metadata().map_or(0, |m| m.len()))
            })
        })
        .unwrap_or((0, 0))
}

/// Waits until a write has staged at least `bytes` (the test fails after a minute).
fn wait_for_staged(pad: &Pad, bytes: u64) {
    let start = std::time::Instant::now();
    while staged(pad).1 < bytes {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "nothing was staged"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn send(child: &std::process::Child, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Waits for the child (the test fails after a minute) and returns its exit code and stderr.
fn finish(mut child: std::process::Child) -> (i32, String) {
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the command did not stop");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code().unwrap_or(-1), stderr)
}

/// Regression: `yes | scratchpad put` stopped by Ctrl-C (SIGINT), SIGTERM, a closed terminal
/// (SIGHUP) or SIGPIPE died where it stood and left its temporary file (gigabytes of it) until the
/// next collection pass. The write now stops, removes what it staged, and the command exits as the
/// signal asks.
#[test]
fn an_interrupted_put_of_an_endless_stream_leaves_nothing_behind() {
    for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1), ("PIPE", 13)] {
        let pad = Pad::new();
        let mut child = pad
            .command(&["put", "endless"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // Endless, like `yes`: it stops when the reader is gone.
        let writer = std::thread::spawn(move || {
            let line = b"y\n".repeat(32 * 1024);
            while std::io::Write::write_all(&mut stdin, &line).is_ok() {}
        });
        wait_for_staged(&pad, 8 << 20);
        send(&child, signal);
        let (code, stderr) = finish(child);
        writer.join().unwrap();
        assert_eq!(code, 128 + number, "SIG{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("stopped by SIG{signal}"))
                && stderr.contains("nothing was stored"),
            "SIG{signal}: {stderr}"
        );
        assert_eq!(staged(&pad), (0, 0), "SIG{signal} left its temporary file");
        assert!(!pad.ok(&["ls"]).contains("endless"), "SIG{signal}");
    }
}

/// A put blocked on input that stops coming (its producer hangs) is stopped too, and removes its
/// temporary file, within a moment of the signal.
#[test]
fn a_put_waiting_for_input_is_stopped_and_cleaned_up() {
    let pad = Pad::new();
    let mut child = pad
        .command(&["put", "stuck"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, log(300_000).as_bytes()).unwrap();
    wait_for_staged(&pad, 4 << 20);
    send(&child, "TERM");
    let (code, stderr) = finish(child);
    drop(stdin);
    assert_eq!(code, 143, "{stderr}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    assert_eq!(staged(&pad), (0, 0));
    assert!(!pad.ok(&["ls"]).contains("stuck"));
}

/// `scratchpad run -- yes` interrupted: the same, and the command it ran ends too (its output
/// pipe closes).
#[test]
fn an_interrupted_run_leaves_nothing_behind() {
    let pad = Pad::new();
    let child = pad
        .command(&["run", "--name", "endless", "--", "yes"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_staged(&pad, 8 << 20);
    send(&child, "INT");
    let (code, stderr) = finish(child);
    assert_eq!(code, 130, "{stderr}");
    assert!(stderr.contains("stopped by SIGINT"), "{stderr}");
    assert_eq!(staged(&pad), (0, 0));
    assert!(!pad.ok(&["ls"]).contains("endless"));
}
