//! Facts about a read that the text tree does not print but that an agent reading a whole
//! conversation needs (docs/protocol/reading.md, "Thread-read coverage"): which element holds the
//! active conversation, whether the page says that all its messages are expanded, and a
//! fingerprint of the tree's content that tells a later page whether the content changed.
//!
//! The conversation rule, in one place for every path:
//!
//! 1. A *message* is an `article` or a `comment`, or a `listitem` whose subtree holds a heading
//!    (the sender line of webmail and comment threads) that is not wholly a link. A heading that
//!    is wholly a link is how news and blog indexes title their entries, and an inbox row holds
//!    no heading at all, so neither counts.
//! 2. A *message container* directly holds at least two messages (a single article is a page,
//!    not a conversation). A `log` (chat transcripts, WAI-ARIA 1.2 "log"), a `feed`, or a `list`
//!    named like a conversation (Slack's "Messages in #general": chat messages rarely have
//!    headings) directly holding at least two children of any kind is one as well.
//! 3. The first message container in tree order is the active conversation's. Its root is then
//!    widened to take in the subject heading and the thread's toolbar: it moves up through the
//!    container's ancestors while the ancestor adds no page chrome (no `banner`, `navigation`,
//!    `search` or `contentinfo` landmark) and no other collection (`list`, `listbox`, `grid`,
//!    `table`, `tree`, `treegrid`, `feed`, `log`, `menu`, `tablist`) outside the messages: the
//!    inbox list, the folder list and the app bar therefore stay out. It never becomes the
//!    document, and it stops at the first ancestor named like a conversation ("conversation",
//!    "thread", "messages", "comments", "chat"), which is the author saying where it ends.
//!
//! Gmail's thread view is a `main` landmark holding the subject heading, the thread toolbar and
//! a `list` of message `listitem`s, each with the sender as a heading; Slack-like chat apps use
//! `log` or a named `list`; GitHub and forum comment threads are series of named `article`s.

use crate::aria::Role;
use crate::dom::NodeId;
use crate::tree::{AxNode, AxRole, AxTree};

/// What a read found beyond its printed lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadFacts {
    /// The element holding the active conversation, if the tree shows one.
    pub conversation_root: Option<NodeId>,
    /// The reference of `conversation_root`, filled in by `generate_accessibility_tree`, which
    /// holds the caller's reference registry.
    pub conversation_root_ref: Option<String>,
    /// `Some(true)` when a "Collapse all" control is shown (evidence that every message is
    /// expanded), `Some(false)` when only "Expand all" is shown, `None` when neither is.
    pub all_messages_expanded: Option<bool>,
    /// A fingerprint of the tree's roles, names and shape (64-bit FNV-1a): equal fingerprints
    /// mean the same content, so a later page of a changed subtree is recognised as stale.
    pub content_fingerprint: u64,
}

/// Reads the facts of a built tree (the document's or an anchored subtree's).
pub fn read_facts(tree: &AxTree) -> ReadFacts {
    ReadFacts {
        conversation_root: conversation_root(tree)
            .and_then(|index| tree.node(index))
            .map(|node| node.dom_node),
        conversation_root_ref: None,
        all_messages_expanded: expansion_evidence(tree),
        content_fingerprint: content_fingerprint(tree),
    }
}

/// Roles that are page chrome: a conversation root never takes them in.
const CHROME_ROLES: [Role; 4] = [
    Role::Banner,
    Role::Navigation,
    Role::Search,
    Role::ContentInfo,
];

/// Roles of collections: outside the message container, one of these is another list (the inbox,
/// the folders), so the root does not take it in.
const COLLECTION_ROLES: [Role; 10] = [
    Role::List,
    Role::ListBox,
    Role::Grid,
    Role::Table,
    Role::Tree,
    Role::TreeGrid,
    Role::Feed,
    Role::Log,
    Role::Menu,
    Role::TabList,
];

/// Words of an accessible name by which an author marks a conversation's container.
const CONVERSATION_NAME_WORDS: [&str; 5] =
    ["conversation", "thread", "messages", "comments", "chat"];

fn aria_role(node: &AxNode) -> Option<Role> {
    match node.role {
        AxRole::Aria(role) => Some(role),
        _ => None,
    }
}

/// The index of the conversation root in `tree.nodes`, by the rule of the module comment.
/// Linear in the tree's size: the per-subtree facts are gathered in one bottom-up pass.
pub fn conversation_root(tree: &AxTree) -> Option<u32> {
    let root = tree.root?;
    let order = pre_order(tree, root);
    // Per subtree, bottom-up (in reversed pre-order every child comes before its parent): how
    // many chrome landmarks and collections it holds, and whether it holds a sender heading.
    let mut foreign = vec![0u32; tree.nodes.len()];
    let mut holds_heading = vec![false; tree.nodes.len()];
    for &index in order.iter().rev() {
        let node = &tree.nodes[index as usize];
        let role = aria_role(node);
        let own = role
            .is_some_and(|role| CHROME_ROLES.contains(&role) || COLLECTION_ROLES.contains(&role));
        let mut count = u32::from(own);
        let mut heading = role == Some(Role::Heading) && !is_wholly_a_link(tree, node);
        for &child in &node.children {
            count = count.saturating_add(foreign.get(child as usize).copied().unwrap_or(0));
            heading |= holds_heading.get(child as usize).copied().unwrap_or(false);
        }
        foreign[index as usize] = count;
        holds_heading[index as usize] = heading;
    }
    let is_message = |index: u32| {
        tree.node(index).is_some_and(|node| match aria_role(node) {
            Some(Role::Article | Role::Comment) => true,
            Some(Role::ListItem) => holds_heading[index as usize],
            _ => false,
        })
    };
    let container = order.iter().copied().find(|&index| {
        let node = &tree.nodes[index as usize];
        match (node.role, aria_role(node)) {
            (AxRole::Document, _) => false,
            (_, Some(Role::Log | Role::Feed)) => node.children.len() >= 2,
            (_, Some(Role::List)) if is_named_like_conversation(node) => node.children.len() >= 2,
            _ => node
                .children
                .iter()
                .filter(|&&child| is_message(child))
                .nth(1)
                .is_some(),
        }
    })?;
    let parents = parents(tree);
    let inside_container = foreign[container as usize];
    let mut chosen = container;
    if is_named_like_conversation(&tree.nodes[container as usize]) {
        return Some(chosen);
    }
    while let Some(parent) = parents[chosen as usize] {
        let node = &tree.nodes[parent as usize];
        if node.role == AxRole::Document || foreign[parent as usize] > inside_container {
            break;
        }
        chosen = parent;
        if is_named_like_conversation(node) {
            break;
        }
    }
    Some(chosen)
}

/// A heading whose only child is a link (the title of an index entry).
fn is_wholly_a_link(tree: &AxTree, heading: &AxNode) -> bool {
    matches!(heading.children.as_slice(), [only] if tree
        .node(*only)
        .is_some_and(|child| aria_role(child) == Some(Role::Link)))
}

fn is_named_like_conversation(node: &AxNode) -> bool {
    if node.role == AxRole::Text || node.name.is_empty() {
        return false;
    }
    let name = node.name.to_lowercase();
    name.split(|character: char| !character.is_alphanumeric())
        .any(|word| CONVERSATION_NAME_WORDS.contains(&word))
}

/// The parent of every node of the arena, `None` for the root and for unreachable nodes.
fn parents(tree: &AxTree) -> Vec<Option<u32>> {
    let mut parents = vec![None; tree.nodes.len()];
    for (index, node) in tree.nodes.iter().enumerate() {
        for &child in &node.children {
            if let Some(slot) = parents.get_mut(child as usize) {
                *slot = Some(index as u32);
            }
        }
    }
    parents
}

/// The indices of `start`'s subtree in pre-order (parents before children); iterative.
fn pre_order(tree: &AxTree, start: u32) -> Vec<u32> {
    let mut order = Vec::new();
    let mut stack = vec![start];
    while let Some(index) = stack.pop() {
        if let Some(node) = tree.node(index) {
            order.push(index);
            stack.extend(node.children.iter().rev());
        }
    }
    order
}

/// The names of the controls that say whether a thread's messages are all expanded, and what
/// each one says: Gmail and Outlook show "Collapse all" once every message is expanded and
/// "Expand all" while some are collapsed. A name that starts with one of them counts ("Collapse
/// all messages"), compared without case. Only English names are recognised.
const EXPANSION_CONTROLS: [(&str, bool); 2] = [("collapse all", true), ("expand all", false)];

/// `Some(true)` when a control named "Collapse all" is in the tree (hidden content never is),
/// `Some(false)` when only "Expand all" is, `None` otherwise.
pub fn expansion_evidence(tree: &AxTree) -> Option<bool> {
    let mut evidence = None;
    for node in &tree.nodes {
        if !matches!(
            aria_role(node),
            Some(Role::Button | Role::Link | Role::MenuItem)
        ) {
            continue;
        }
        let name = node.name.trim().to_lowercase();
        for (prefix, expanded) in EXPANSION_CONTROLS {
            if name.starts_with(prefix) {
                // "Collapse all" is the evidence; it wins over a stray "Expand all".
                evidence = Some(evidence.unwrap_or(false) || expanded);
            }
        }
    }
    evidence
}

/// 64-bit FNV-1a over every reachable node's role, name and number of children, in tree order.
/// The viewport and focus are left out on purpose: scrolling or focusing between two pages does
/// not change what the pages hold.
pub fn content_fingerprint(tree: &AxTree) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let Some(root) = tree.root else {
        return 0;
    };
    let mut stack = vec![root];
    while let Some(index) = stack.pop() {
        let Some(node) = tree.node(index) else {
            continue;
        };
        feed(node.role.as_str().as_bytes());
        feed(&[0]);
        feed(node.name.as_bytes());
        feed(&[0]);
        feed(&(node.children.len() as u32).to_le_bytes());
        stack.extend(node.children.iter().rev());
    }
    hash
}
