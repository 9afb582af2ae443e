//! The commands the scripted models of the real agent CLIs run in those agents' shell tools, the
//! same for each agent so that what each model receives can be compared.

/// 1.2 MB in 400,000 lines, line 200,001 the only error.
pub const BIG: &str = r#"awk 'BEGIN{for(i=1;i<=400000;i++) print (i==200001?"ERROR: disk full at step 200001":"ab")}'"#;
/// A failure after 100,000 lines (589 KB).
pub const FAILING: &str = "seq 100000; exit 3";
/// Stdout, then stderr, quotes, `$` and non-ASCII: small enough to pass as it is. Without the
/// capture an agent may read stdout and stderr on pipes of their own: the pause keeps their order.
pub const SMALL: &str =
    r#"printf '%s\n' 'ünïcode "quoted" $HOME' "it's"; sleep 0.2; echo 'wärning: on stderr' >&2"#;

/// `output` without its lines that start with one of `prefixes`: what an agent's framing says
/// differently from run to run (a process id, a wall time).
pub fn without_lines(output: &str, prefixes: &[&str]) -> String {
    output
        .lines()
        .filter(|line| !prefixes.iter().any(|prefix| line.starts_with(prefix)))
        .collect::<Vec<_>>()
        .join("\n")
}
