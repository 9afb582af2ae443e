//! The gateway in process, in front of the counting upstream of the proxy tests and of servers that
//! misbehave.

use std::time::{Duration, Instant};

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use scratchpad_mcp::{GatewayOptions, GatewayServer, GatewayUpstream, UpstreamSpec};
use serde_json::json;

use super::proxy::{Upstream, object, pad, serve_upstream};
use crate::common::text;

#[tokio::test]
async fn an_upstream_that_never_answers_its_handshake_holds_the_others_up_only_for_the_startup_wait()
 {
    const STARTUP_WAIT: Duration = Duration::from_secs(1);
    let (url, _stop) = serve_upstream(Upstream::default()).await;
    let (pad, _dir) = pad();
    let mut options = GatewayOptions::new(vec![
        GatewayUpstream {
            name: "good".into(),
            spec: UpstreamSpec::url(url),
        },
        GatewayUpstream {
            // Starts, then reads nothing and says nothing: `initialize` is never answered.
            name: "hang".into(),
            spec: UpstreamSpec::Command {
                program: "sh".into(),
                args: vec!["-c".into(), "exec sleep 120".into()],
                env: Vec::new(),
            },
        },
    ]);
    options.startup_wait = STARTUP_WAIT;
    let gateway = GatewayServer::new(pad, options);
    let (gateway_end, client_end) = tokio::io::duplex(1 << 20);
    let serving = gateway.clone();
    tokio::spawn(async move {
        if let Ok(running) = serving.serve(gateway_end).await {
            let _ = running.waiting().await;
        }
    });
    let start = Instant::now();
    let client = ().serve(client_end).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let waited = start.elapsed();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert!(
        names.contains(&"good__lookup") && names.contains(&"hang__unavailable"),
        "{names:?}"
    );
    // The initialize and the listing each wait the startup wait at most, not the 30 s handshake.
    assert!(waited < STARTUP_WAIT * 6, "waited {waited:?}");
    let placeholder = tools
        .iter()
        .find(|t| t.name == "hang__unavailable")
        .unwrap();
    assert!(
        placeholder
            .description
            .as_deref()
            .unwrap()
            .contains("still starting"),
        "{placeholder:?}"
    );
    let good = client
        .call_tool(
            CallToolRequestParams::new("good__lookup")
                .with_arguments(object(json!({"text": "cat"}))),
        )
        .await
        .unwrap();
    assert_eq!(text(&good), "cat at upstream call 1");
    let hung = client
        .call_tool(CallToolRequestParams::new("hang__unavailable"))
        .await
        .unwrap();
    assert_eq!(hung.is_error, Some(true));
    assert!(
        text(&hung).contains("`hang` is still starting")
            && text(&hung).contains("has not answered the MCP handshake"),
        "{}",
        text(&hung)
    );
    drop(client);
    gateway.shutdown().await;
}
