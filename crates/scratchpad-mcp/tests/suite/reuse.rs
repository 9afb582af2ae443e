//! Repeated calls answered from the stored result, through the whole proxy and the gateway in
//! process, in front of the counting upstream of the proxy tests (its `lookup` tool declares
//! `readOnlyHint` and `idempotentHint` and says which upstream call answered).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt as _};
use scratchpad_core::Scratchpad;
use scratchpad_mcp::proxy::reuse::ReusePolicy;
use scratchpad_mcp::{GatewayOptions, GatewayServer, GatewayUpstream, ProxyOptions, UpstreamSpec};
use serde_json::{Value, json};

use super::proxy::{Upstream, object, observation, pad, serve_proxy, serve_upstream};
use crate::common::text;

struct Rig {
    client: RunningService<RoleClient, ()>,
    calls: Arc<AtomicUsize>,
    pad: Scratchpad,
    _dir: tempfile::TempDir,
    _stop: tokio_util::sync::CancellationToken,
}

async fn rig(reuse: ReusePolicy) -> Rig {
    let upstream = Upstream::default();
    let calls = upstream.calls.clone();
    let (url, stop) = serve_upstream(upstream).await;
    let (pad, dir) = pad();
    let mut options = ProxyOptions::new(UpstreamSpec::url(url));
    options.reuse = reuse;
    let client = ().serve(serve_proxy(&pad, options)).await.unwrap();
    Rig {
        client,
        calls,
        pad,
        _dir: dir,
        _stop: stop,
    }
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(object(args)))
        .await
        .unwrap_or_else(|err| panic!("{tool}: {err}"))
}

impl Rig {
    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        call(&self.client, tool, args).await
    }

    fn upstream_calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn reused(result: &CallToolResult) -> bool {
    text(result).contains("the tool was not called again")
}

fn policy(window: Duration, tools: &[&str]) -> ReusePolicy {
    ReusePolicy {
        window: Some(window),
        tools: tools.iter().map(|name| (*name).to_owned()).collect(),
    }
}

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_repeated_read_only_call_is_answered_from_the_stored_result_without_the_upstream() {
    let rig = rig(ReusePolicy::default()).await;
    let first = rig
        .call("lookup", json!({"text": "cat", "opts": {"a": 1, "b": 2}}))
        .await;
    assert_eq!(rig.upstream_calls(), 1);
    assert!(!reused(&first), "{}", text(&first));
    // The same call with its keys in another order.
    let second = rig
        .call("lookup", json!({"opts": {"b": 2, "a": 1}, "text": "cat"}))
        .await;
    assert_eq!(rig.upstream_calls(), 1, "the upstream was not called again");
    assert!(reused(&second), "{}", text(&second));
    assert_eq!(second.content[0], first.content[0], "the earlier result");
    let note = text(&second);
    assert!(
        note.contains("0 s ago") && note.contains("\"scratchpad\": {\"fresh\": true}"),
        "{note}"
    );
    // Other arguments are another call.
    let other = rig.call("lookup", json!({"text": "dog"})).await;
    assert_eq!(rig.upstream_calls(), 2);
    assert!(text(&other).starts_with("dog at upstream call 2"));
}

#[tokio::test]
async fn fresh_calls_the_upstream_and_its_result_answers_the_next_call() {
    let rig = rig(ReusePolicy::default()).await;
    rig.call("lookup", json!({"text": "cat"})).await;
    let fresh = rig
        .call(
            "lookup",
            json!({"text": "cat", "scratchpad": {"fresh": true}}),
        )
        .await;
    assert_eq!(rig.upstream_calls(), 2);
    assert_eq!(text(&fresh), "cat at upstream call 2");
    let again = rig.call("lookup", json!({"text": "cat"})).await;
    assert_eq!(rig.upstream_calls(), 2);
    assert!(
        text(&again).starts_with("cat at upstream call 2"),
        "{}",
        text(&again)
    );
    // A call that saves its output under a name runs, so the name holds this call's output.
    rig.call("lookup", json!({"text": "cat", "scratchpad": "kept"}))
        .await;
    assert_eq!(rig.upstream_calls(), 3);
    assert!(rig.pad.get("kept").is_ok());
    let bad = rig
        .call(
            "lookup",
            json!({"text": "cat", "scratchpad": {"fresh": "yes"}}),
        )
        .await;
    assert!(bad.is_error == Some(true) && text(&bad).contains("true or false"));
    assert_eq!(
        rig.upstream_calls(),
        3,
        "a bad control argument costs no call"
    );
}

#[tokio::test]
async fn a_tool_that_declares_nothing_is_reused_only_when_configured() {
    let rig = rig(ReusePolicy::default()).await;
    rig.call("log", json!({"lines": 3})).await;
    let again = rig.call("log", json!({"lines": 3})).await;
    assert_eq!(rig.upstream_calls(), 2);
    assert!(!reused(&again));

    let rig = self::rig(policy(MINUTE, &["log"])).await;
    rig.call("log", json!({"lines": 3})).await;
    let again = rig.call("log", json!({"lines": 3})).await;
    assert_eq!(rig.upstream_calls(), 1);
    assert!(reused(&again), "{}", text(&again));
}

#[tokio::test]
async fn after_the_window_the_upstream_is_called_again() {
    let rig = rig(policy(Duration::from_millis(300), &[])).await;
    rig.call("lookup", json!({"text": "cat"})).await;
    rig.call("lookup", json!({"text": "cat"})).await;
    assert_eq!(rig.upstream_calls(), 1);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let late = rig.call("lookup", json!({"text": "cat"})).await;
    assert_eq!(rig.upstream_calls(), 2);
    assert_eq!(text(&late), "cat at upstream call 2");
}

#[tokio::test]
async fn failures_are_never_reused_and_reuse_off_calls_every_time() {
    let rig = rig(ReusePolicy::default()).await;
    rig.call("lookup", json!({"text": "fail"})).await;
    let again = rig.call("lookup", json!({"text": "fail"})).await;
    assert_eq!(rig.upstream_calls(), 2);
    assert_eq!(again.is_error, Some(true));

    let rig = self::rig(ReusePolicy::off()).await;
    rig.call("lookup", json!({"text": "cat"})).await;
    rig.call("lookup", json!({"text": "cat"})).await;
    assert_eq!(rig.upstream_calls(), 2);
}

#[tokio::test]
async fn a_call_that_may_change_something_forgets_the_recent_reads() {
    let rig = rig(ReusePolicy::default()).await;
    rig.call("lookup", json!({"text": "cat"})).await;
    // `echo` declares nothing: it may have changed what `lookup` answers.
    rig.call("echo", json!({"text": "edit"})).await;
    let after = rig.call("lookup", json!({"text": "cat"})).await;
    assert_eq!(rig.upstream_calls(), 3);
    assert_eq!(text(&after), "cat at upstream call 3");
}

#[tokio::test]
async fn an_offloaded_result_is_reused_by_its_entry_until_the_entry_is_removed() {
    let rig = rig(ReusePolicy::default()).await;
    let args = json!({"text": "big", "lines": 2_000});
    let first = rig.call("lookup", args.clone()).await;
    let name = observation(&first)["scratchpad"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = rig.call("lookup", args.clone()).await;
    assert_eq!(rig.upstream_calls(), 1);
    assert!(
        text(&second).contains(&format!("stored as `{name}`")),
        "{}",
        text(&second)
    );
    rig.pad.delete(&name, None).unwrap();
    let third = rig.call("lookup", args).await;
    assert_eq!(rig.upstream_calls(), 2, "the entry is gone: called again");
    assert!(!reused(&third));
    assert_ne!(observation(&third)["scratchpad"], name);
}

#[tokio::test]
async fn two_identical_calls_at_once_both_get_the_answer() {
    let rig = rig(ReusePolicy::default()).await;
    let (a, b) = tokio::join!(
        rig.call("lookup", json!({"text": "cat"})),
        rig.call("lookup", json!({"text": "cat"}))
    );
    for result in [&a, &b] {
        assert!(
            text(result).starts_with("cat at upstream call"),
            "{}",
            text(result)
        );
    }
    let calls = rig.upstream_calls();
    assert!((1..=2).contains(&calls));
    let third = rig.call("lookup", json!({"text": "cat"})).await;
    assert_eq!(rig.upstream_calls(), calls);
    assert!(reused(&third));
}

#[tokio::test]
async fn only_reusable_tools_take_an_object_for_the_scratchpad_argument_and_no_definition_grows() {
    let rig = rig(ReusePolicy::default()).await;
    let tools = rig.client.list_all_tools().await.unwrap();
    let argument = |tool: &str| {
        tools.iter().find(|t| t.name == tool).unwrap().input_schema["properties"]["scratchpad"]
            .clone()
    };
    let (lookup, log) = (argument("lookup"), argument("log"));
    assert_eq!(lookup["type"], json!(["string", "object"]));
    assert_eq!(log["type"], "string");
    // The fresh form is spelled out in the reused reply's note, not in every definition.
    assert_eq!(lookup["description"], log["description"]);
    assert!(!log["description"].as_str().unwrap().contains("fresh"));
}

#[tokio::test]
async fn the_gateway_reuses_per_upstream_and_names_tools_as_server_tool() {
    let (mut urls, mut counters, mut stops) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..2 {
        let upstream = Upstream::default();
        counters.push(upstream.calls.clone());
        let (url, stop) = serve_upstream(upstream).await;
        urls.push(url);
        stops.push(stop);
    }
    let (pad, _dir) = pad();
    let upstreams = ["a.one", "b"]
        .iter()
        .zip(&urls)
        .map(|(name, url)| GatewayUpstream {
            name: (*name).to_owned(),
            spec: UpstreamSpec::url(url.clone()),
        })
        .collect();
    let mut options = GatewayOptions::new(upstreams);
    // The server's name as configured or as listed.
    options.reuse = policy(MINUTE, &["a_one__log", "b.x__log"]);
    let gateway = GatewayServer::new(pad.clone(), options);
    let (gateway_end, client_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = gateway.clone().serve(gateway_end).await {
            let _ = running.waiting().await;
        }
        gateway.shutdown().await;
    });
    let client = ().serve(client_end).await.unwrap();
    let calls = |index: usize| counters[index].load(Ordering::SeqCst);

    call(&client, "a_one__lookup", json!({"text": "cat"})).await;
    let again = call(&client, "a_one__lookup", json!({"text": "cat"})).await;
    assert!(reused(&again), "{}", text(&again));
    assert_eq!(calls(0), 1);
    // The same call to another server is another call.
    call(&client, "b__lookup", json!({"text": "cat"})).await;
    assert_eq!(calls(1), 1);
    // Configured for `a.one` only.
    call(&client, "a_one__log", json!({"lines": 2})).await;
    call(&client, "a_one__log", json!({"lines": 2})).await;
    assert_eq!(calls(0), 2);
    call(&client, "b__log", json!({"lines": 2})).await;
    call(&client, "b__log", json!({"lines": 2})).await;
    assert_eq!(calls(1), 3);
    // `b__log` declares nothing and is not configured: it may have changed what `a.one` reads.
    let after = call(&client, "a_one__lookup", json!({"text": "cat"})).await;
    assert!(!reused(&after));
    assert_eq!(calls(0), 3);
    let _ = pad;
}
