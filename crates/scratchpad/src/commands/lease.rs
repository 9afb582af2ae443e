//! `lease acquire|renew|release|show`: claiming a name for a while, with a fencing token.

use std::io::Write as _;
use std::time::Duration;

use scratchpad_core::figures::{span, utc_time};
use scratchpad_core::{Lease, LeaseState, Ttl};

use crate::Ctx;
use crate::cli::{LeaseArgs, LeaseCommand};

pub fn lease(ctx: &mut Ctx, args: LeaseArgs) -> anyhow::Result<u8> {
    match args.command {
        LeaseCommand::Acquire(args) => {
            let holder = holder(ctx, args.holder.as_deref(), "holds the lease")?;
            let lease = ctx
                .pad
                .acquire_lease(&args.name, &holder, duration(&args.ttl)?)?;
            print_token(ctx, &lease, "leased")
        }
        LeaseCommand::Renew(args) => {
            let holder = holder(ctx, args.holder.as_deref(), "renews the lease (its holder)")?;
            let lease =
                ctx.pad
                    .renew_lease(&args.name, args.token, &holder, duration(&args.ttl)?)?;
            print_token(ctx, &lease, "renewed the lease on")
        }
        LeaseCommand::Release(args) => {
            let holder = holder(
                ctx,
                args.holder.as_deref(),
                "releases the lease (its holder)",
            )?;
            let lease = ctx.pad.release_lease(&args.name, args.token, &holder)?;
            if ctx.json {
                ctx.print_json(&lease)?;
            } else {
                writeln!(
                    ctx.out,
                    "released the lease on `{}` (token {}); anyone may acquire it now, and writes \
                     carrying token {} are refused",
                    lease.name, lease.token, lease.token
                )?;
            }
            Ok(0)
        }
        LeaseCommand::Show(args) => {
            let lease = ctx.pad.lease(&args.name)?;
            if ctx.json {
                ctx.print_json(&lease)?;
                return Ok(0);
            }
            match lease {
                Some(lease) => show(ctx, &lease)?,
                None => writeln!(
                    ctx.out,
                    "nobody ever acquired a lease on `{}` in session `{}`",
                    args.name,
                    ctx.pad.session()
                )?,
            }
            Ok(0)
        }
    }
}

/// Who acquires, renews or releases a lease: `--holder`, else the author of every command.
fn holder(ctx: &Ctx, given: Option<&str>, does: &str) -> anyhow::Result<String> {
    match given.or(ctx.pad.author()) {
        Some(holder) => Ok(holder.to_owned()),
        None => anyhow::bail!(
            "say who {does}: --holder NAME, or --author / SCRATCHPAD_AUTHOR for all commands"
        ),
    }
}

/// `--ttl 60s` as a duration; leases always end.
fn duration(text: &str) -> anyhow::Result<Duration> {
    Ttl::parse_lease(text).map_err(|err| anyhow::anyhow!("--ttl: {err}"))
}

/// The token alone on stdout, for `token=$(…)`; who holds what until when on stderr.
fn print_token(ctx: &mut Ctx, lease: &Lease, verb: &str) -> anyhow::Result<u8> {
    if ctx.json {
        ctx.print_json(lease)?;
        return Ok(0);
    }
    writeln!(ctx.out, "{}", lease.token)?;
    let _ = writeln!(
        std::io::stderr(),
        "{verb} `{}` for {}: token {}, until {} ({} by the store's clock); pass --lease {} with the \
         writes it guards",
        lease.name,
        crate::format::shown_name(lease.holder.as_deref()),
        lease.token,
        utc_time(lease.expires_at),
        span(lease.remaining_ms()),
        lease.token
    );
    Ok(0)
}

fn show(ctx: &mut Ctx, lease: &Lease) -> anyhow::Result<()> {
    let state = lease.state();
    let expires = match state {
        LeaseState::Held => format!(
            "{} (in {} by the store's clock)",
            utc_time(lease.expires_at),
            span(lease.remaining_ms())
        ),
        LeaseState::Expired => format!(
            "{} ({} ago by the store's clock)",
            utc_time(lease.expires_at),
            span(lease.now - lease.expires_at)
        ),
        LeaseState::Released => format!(
            "released at {}",
            utc_time(lease.released_at.unwrap_or(lease.expires_at))
        ),
    };
    let rows = [
        ("lease", format!("`{}`", lease.name)),
        ("state", state.as_str().to_owned()),
        ("holder", crate::format::shown_name(lease.holder.as_deref())),
        ("token", lease.token.to_string()),
        ("acquired", utc_time(lease.acquired_at)),
        ("expires", expires),
    ];
    for (label, value) in rows {
        writeln!(ctx.out, "{:<9} {value}", format!("{label}:"))?;
    }
    Ok(())
}
