//! The conversation rule of `get_accessibility_tree` (docs/protocol/reading.md, "Thread-read
//! coverage"): which element holds the active conversation, the "Collapse all" evidence and the
//! content fingerprint, over the in-memory DOM. Each case is `root_of(html)`: the `id` attribute
//! of the element the rule picks, or `None`.

use allwright_ax::memdom::MemDom;
use allwright_ax::{generate_accessibility_tree, Dom, NodeId, TextTree, TextTreeOptions};

fn read(dom: &MemDom, anchor: Option<NodeId>) -> TextTree {
    generate_accessibility_tree(dom, anchor, &TextTreeOptions::default(), &mut |node| {
        format!("ref_{}", node.0)
    })
    .expect("the tree renders")
}

/// The `id` of the conversation root the document read reports, checked against its reference.
fn root_of(html: &str) -> Option<String> {
    let dom = MemDom::parse(html);
    let tree = read(&dom, None);
    let facts = &tree.read_facts;
    assert_eq!(
        facts.conversation_root_ref,
        facts
            .conversation_root
            .map(|node| format!("ref_{}", node.0))
    );
    let node = facts.conversation_root?;
    // The element must also be printed, with its reference, so that the agent can anchor on it.
    let reference = format!("[ref_{}]", node.0);
    assert!(
        tree.tree.contains(&reference),
        "{reference} in\n{}",
        tree.tree
    );
    Some(dom.attribute(node, "id").unwrap_or_default().to_string())
}

const GMAIL_LIKE: &str = r##"
<header id="bar" role="banner"><input type="search" aria-label="Search mail"></header>
<nav id="folders"><ul><li><a href="#inbox">Inbox</a></li><li><a href="#sent">Sent</a></li></ul></nav>
<div role="main" id="thread">
  <div role="toolbar" aria-label="Thread actions"><button>Archive</button><button>Expand all</button></div>
  <h2>Quarterly plan</h2>
  <div role="list">
    <div role="listitem"><h3>Ana</h3><p>First draft attached.</p></div>
    <div role="listitem"><h3>Ben</h3><p>Looks good.</p></div>
    <div role="listitem"><h3>Ana</h3><p>Thanks!</p></div>
  </div>
</div>"##;

#[test]
fn a_gmail_like_thread_is_its_main_landmark_with_subject_toolbar_and_messages() {
    assert_eq!(root_of(GMAIL_LIKE).as_deref(), Some("thread"));
}

#[test]
fn the_root_stops_before_an_inbox_list_beside_the_thread() {
    let html = r##"
<main id="page">
  <ul aria-label="Inbox"><li><a href="#1">Ana — Quarterly plan — First draft</a></li><li><a href="#2">Cy — Lunch</a></li></ul>
  <section aria-label="Reading pane" id="pane">
    <h2>Quarterly plan</h2>
    <ul id="messages">
      <li><h3>Ana</h3><p>First draft attached.</p></li>
      <li><h3>Ben</h3><p>Looks good.</p></li>
    </ul>
  </section>
</main>"##;
    assert_eq!(root_of(html).as_deref(), Some("pane"));
}

#[test]
fn an_inbox_list_alone_is_not_a_conversation() {
    let html = r##"
<main><h1>Inbox</h1>
  <ul><li><a href="#1">Ana — Quarterly plan</a></li><li><a href="#2">Ben — Lunch</a></li><li><a href="#3">Cy — Invoice</a></li></ul>
  <table><tr><td>Dee</td><td>Report</td></tr><tr><td>Eve</td><td>Notes</td></tr></table>
</main>"##;
    assert_eq!(root_of(html), None);
}

#[test]
fn a_single_article_is_not_a_conversation() {
    let html = r##"<main><article><h1>One post</h1><p>Text.</p><ul><li>a</li><li>b</li></ul></article></main>"##;
    assert_eq!(root_of(html), None);
}

#[test]
fn an_index_of_linked_titles_is_not_a_conversation() {
    let html = r##"<main><h1>Latest</h1><ul>
  <li><h2><a href="/a">First story</a></h2><p>Teaser</p></li>
  <li><h2><a href="/b">Second story</a></h2><p>Teaser</p></li></ul></main>"##;
    assert_eq!(root_of(html), None);
}

#[test]
fn a_chat_log_is_a_conversation_and_widens_to_its_named_region() {
    let html = r##"
<nav><a href="/">Home</a></nav>
<div role="region" aria-label="Chat with Ben" id="chat">
  <div role="log" id="log"><p>Ana: hi</p><p>Ben: hello</p><p>Ana: lunch?</p></div>
  <textarea aria-label="Message"></textarea>
</div>"##;
    assert_eq!(root_of(html).as_deref(), Some("chat"));
}

#[test]
fn a_chat_list_named_like_a_conversation_holds_messages_without_headings() {
    let html = r##"
<nav aria-label="Channels"><ul><li><a href="#general">general</a></li><li><a href="#random">random</a></li></ul></nav>
<main id="channel"><h1>#general</h1>
  <ul aria-label="Messages in #general" id="chat">
    <li><button>Ana</button> Morning!</li>
    <li><button>Ben</button> Hi Ana.</li>
  </ul>
</main>"##;
    assert_eq!(root_of(html).as_deref(), Some("chat"));
    // Unnamed, the same list of rows is not a conversation.
    assert_eq!(
        root_of(&html.replace(" aria-label=\"Messages in #general\"", "")),
        None
    );
}

#[test]
fn a_named_conversation_container_is_the_root_itself() {
    let html = r##"
<main id="main"><h1>Issue 12</h1><p>Description</p>
  <section aria-label="Comments" id="comments">
    <article><h3>Ana</h3><p>Same here.</p></article>
    <article><h3>Ben</h3><p>Fixed in 1.2.</p></article>
  </section>
</main>"##;
    assert_eq!(root_of(html).as_deref(), Some("comments"));
}

#[test]
fn an_anchored_read_of_the_root_reports_the_anchor_itself() {
    let dom = MemDom::parse(GMAIL_LIKE);
    let thread = dom.element_by_id_attribute("thread").expect("the thread");
    let anchored = read(&dom, Some(thread));
    assert_eq!(anchored.read_facts.conversation_root, Some(thread));
    // The folder list outside the anchor is not read, so the answer is the same as the
    // document's.
    assert_eq!(read(&dom, None).read_facts.conversation_root, Some(thread));
}

#[test]
fn collapse_all_is_evidence_that_every_message_is_expanded() {
    let evidence = |html: &str| {
        read(&MemDom::parse(html), None)
            .read_facts
            .all_messages_expanded
    };
    assert_eq!(evidence(GMAIL_LIKE), Some(false));
    assert_eq!(
        evidence(&GMAIL_LIKE.replace("Expand all", "COLLAPSE ALL")),
        Some(true)
    );
    assert_eq!(evidence(&GMAIL_LIKE.replace("Expand all", "Reply")), None);
    // A hidden "Collapse all" is no evidence; nor is text that merely says it.
    assert_eq!(
        evidence(&GMAIL_LIKE.replace(
            "<button>Expand all</button>",
            "<button hidden>Collapse all</button><p>Collapse all</p>"
        )),
        None
    );
}

#[test]
fn the_fingerprint_changes_with_the_content_only() {
    let fingerprint = |html: &str| {
        read(&MemDom::parse(html), None)
            .read_facts
            .content_fingerprint
    };
    let before = fingerprint(GMAIL_LIKE);
    assert_eq!(before, fingerprint(GMAIL_LIKE));
    let added = GMAIL_LIKE.replace(
        "<div role=\"listitem\"><h3>Ana</h3><p>Thanks!</p></div>",
        "<div role=\"listitem\"><h3>Ana</h3><p>Thanks!</p></div><div role=\"listitem\"><h3>Cy</h3><p>Late reply.</p></div>",
    );
    assert_ne!(before, fingerprint(&added));
    assert_ne!(
        before,
        fingerprint(&GMAIL_LIKE.replace("Looks good.", "Looks bad."))
    );
}
