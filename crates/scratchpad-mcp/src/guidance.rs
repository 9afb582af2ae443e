//! What the server tells the model about using it: the `initialize` instructions, also offered as a
//! prompt for clients that surface prompts rather than instructions.

/// Sent as `instructions` in `initialize` and returned by the `scratchpad_guide` prompt.
pub const INSTRUCTIONS: &str = "\
You have a scratchpad: a store that outlives your context window, compaction and restarts.

- Start of a session: call scratchpad_list to find the plan, notes and outputs already saved.
- Keep notes as you work, under short names: the plan and its progress (plan), findings with their \
evidence (findings), decisions and why (decisions), constraints you must respect (constraints). \
Update them with scratchpad_edit or scratchpad_write mode=append rather than rewriting.
- Large values are stored whole; you see a preview that states exactly what it omits. Do not ask for \
everything: read slices with scratchpad_read (grep with a regex and context for errors or ids, lines \
for a numbered range, tail for the end, json with a jq query for fields).
- A cut reply ends with the exact call that continues it. An error says what to do next.
- Pin or rename an output you will need after this turn; automatic outputs expire after a day.
- Sharing notes with other agents: claim a note with scratchpad_lease before changing it and pass \
its token as `lease`; scratchpad_read mode=history shows who changed what, mode=diff what changed.";

/// The prompt that carries [`INSTRUCTIONS`].
pub const PROMPT_NAME: &str = "scratchpad_guide";

/// One line about the prompt, for `prompts/list`.
pub const PROMPT_DESCRIPTION: &str =
    "How to use the scratchpad: when to keep notes, and how to read slices instead of everything.";
