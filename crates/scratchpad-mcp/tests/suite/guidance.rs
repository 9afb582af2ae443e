//! The guidance reaches the model: as `instructions` in `initialize`, and as a prompt.

use rmcp::model::GetPromptRequestParams;

use crate::common::{Era, Harness};

#[tokio::test]
async fn initialize_carries_the_instructions() {
    let h = Harness::new(Era::Handshake).await;
    let info = h.client.peer_info().unwrap();
    let instructions = info.instructions.as_deref().unwrap();
    for topic in [
        "scratchpad_list",
        "plan",
        "findings",
        "decisions",
        "constraints",
        "grep",
        "slices",
    ] {
        assert!(
            instructions.contains(topic),
            "instructions should mention {topic}: {instructions}"
        );
    }
    assert!(
        instructions.len() < 1_500,
        "instructions stay short: {} chars",
        instructions.len()
    );
}

#[tokio::test]
async fn the_prompt_returns_the_same_guidance() {
    for era in crate::common::ERAS {
        let h = Harness::new(era).await;
        let prompts = h.client.list_prompts(None).await.unwrap();
        assert_eq!(prompts.prompts.len(), 1);
        assert_eq!(prompts.prompts[0].name, "scratchpad_guide");
        let prompt = h
            .client
            .get_prompt(GetPromptRequestParams::new("scratchpad_guide"))
            .await
            .unwrap();
        let text = &prompt.messages[0]
            .content
            .as_text()
            .expect("a text prompt")
            .text;
        assert_eq!(text, scratchpad_mcp::guidance::INSTRUCTIONS);

        let err = h
            .client
            .get_prompt(GetPromptRequestParams::new("nope"))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown prompt `nope`") && err.contains("scratchpad_guide"),
            "{err}"
        );
    }
}
