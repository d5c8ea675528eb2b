//! The widget compatibility matrix (docs/widgets.md): widgets of component libraries from npm,
//! each given a realistic task that an agent does only through the MCP tools (read the tree,
//! find the ref by role and name, act), in both browsers and both input modes (`allwright mcp
//! --launch --input trusted|synthetic`). Each task's effect is checked in the page's own state
//! (`window.fixtureState`, read with execute_js), and so is that nothing ran twice (each widget
//! counts its change events). One browser session per browser and mode runs every widget; the
//! test prints its column of the matrix and fails on any cell that fails: every cell passes
//! today, so no cell has a documented reason to fail (docs/widgets.md says how one would).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::bridge::LaunchedMcp;
use crate::support::{available, fixtures, Browser};

/// How long a popup may take to open, or the page's state to follow an action.
const SETTLE: Duration = Duration::from_secs(5);
/// How long the test waits after a task succeeded before it counts the change events again: a
/// second activation (a fallback click, a repeated key) would land within it.
const SECOND_LOOK: Duration = Duration::from_millis(600);

/// Which input path a session's action tools take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    Trusted,
    Synthetic,
}

impl InputMode {
    fn name(self) -> &'static str {
        match self {
            InputMode::Trusted => "trusted",
            InputMode::Synthetic => "synthetic",
        }
    }
}

/// The agent: a session, its browser and the input mode it was started with.
struct Agent<'a> {
    session: &'a LaunchedMcp,
    browser: Browser,
    mode: InputMode,
}

type Outcome = Result<(), String>;

/// One line of the tree that carries a ref: `role "name" [ref_N]`, with its indent.
#[derive(Debug, Clone)]
struct TreeNode {
    indent: usize,
    role: String,
    name: String,
    reference: String,
}

/// The nodes with refs of a text tree. Names are printed quoted with `\"` and `\\` escapes.
fn nodes_with_refs(tree: &str) -> Vec<TreeNode> {
    let mut nodes = Vec::new();
    for line in tree.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let Some((role, rest)) = trimmed.split_once(' ') else {
            continue;
        };
        let mut name = String::new();
        let mut after_name = rest;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut characters = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((index, character)) = characters.next() {
                match character {
                    '\\' => {
                        if let Some((_, escaped)) = characters.next() {
                            name.push(escaped);
                        }
                    }
                    '"' => {
                        end = index + 1;
                        break;
                    }
                    other => name.push(other),
                }
            }
            after_name = &quoted[end..];
        }
        let after_name = after_name.trim_start();
        let Some(reference) = after_name
            .strip_prefix('[')
            .and_then(|rest| rest.split_once(']'))
            .map(|(reference, _)| reference)
            .filter(|reference| reference.starts_with("ref_"))
        else {
            continue;
        };
        nodes.push(TreeNode {
            indent,
            role: role.to_owned(),
            name,
            reference: reference.to_owned(),
        });
    }
    nodes
}

impl Agent<'_> {
    async fn call(&self, tool: &str, arguments: Value) -> Result<Value, String> {
        self.session
            .call(tool, arguments.clone())
            .await
            .map_err(|error| format!("{tool}({arguments}) failed: {}", error.0))
    }

    /// Runs an input tool and checks that its result names the input path of the session:
    /// real input for click_ax, hover and press_key in trusted mode, the extension's own otherwise.
    async fn act(&self, tool: &str, arguments: Value) -> Result<Value, String> {
        let result = self.call(tool, arguments).await?;
        let expected = match (self.mode, tool) {
            (InputMode::Trusted, "click_ax" | "hover" | "press_key") => "trusted",
            _ => "synthetic",
        };
        if result["input"] != expected {
            return Err(format!(
                "{tool} ran input {} in {} mode: {result}",
                result["input"],
                self.mode.name()
            ));
        }
        Ok(result)
    }

    async fn tree(&self) -> Result<String, String> {
        let tree = self.call("get_accessibility_tree", json!({})).await?;
        Ok(tree["tree"].as_str().unwrap_or_default().to_owned())
    }

    /// The ref of the first node of `role` whose name `matches`, waiting for it to appear (a
    /// popup opens after a frame or two).
    async fn find(&self, role: &str, matches: impl Fn(&str) -> bool) -> Result<String, String> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let tree = self.tree().await?;
            if let Some(node) = nodes_with_refs(&tree)
                .into_iter()
                .find(|node| node.role == role && matches(&node.name))
            {
                return Ok(node.reference);
            }
            if Instant::now() > deadline {
                return Err(format!("no such {role} with a ref in the tree:\n{tree}"));
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// The ref of the first node of `role` whose next line is text that `matches`: how an agent
    /// finds an unnamed control by the words printed beside it (a checkbox whose label wraps
    /// its custom element, a calendar cell named only by its number).
    async fn find_by_text_beside(
        &self,
        role: &str,
        matches: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let tree = self.tree().await?;
            let lines: Vec<&str> = tree.lines().collect();
            for (index, line) in lines.iter().enumerate() {
                let Some(node) = nodes_with_refs(line).pop() else {
                    continue;
                };
                let beside = lines
                    .get(index + 1)
                    .map(|next| next.trim_start())
                    .and_then(|next| next.strip_prefix("text \""))
                    .and_then(|next| next.strip_suffix('"'));
                if node.role == role && beside.is_some_and(&matches) {
                    return Ok(node.reference);
                }
            }
            if Instant::now() > deadline {
                return Err(format!("no {role} beside such text in the tree:\n{tree}"));
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    async fn navigate(&self, page: &str) -> Outcome {
        let url = fixtures().url(&format!("/pages/widgets/{page}.html"));
        self.call("navigate", json!({ "url": url })).await?;
        // The app publishes its first state once its components are defined and rendered.
        self.wait_for_state(|_| true, "the app's first state")
            .await?;
        Ok(())
    }

    /// The page's own record of its state (fixtures/apps/state.js).
    async fn state(&self) -> Result<Value, String> {
        let answer = self
            .call(
                "execute_js",
                json!({ "code": "JSON.stringify(window.fixtureState ?? null)" }),
            )
            .await?;
        let text = answer["value"].as_str().unwrap_or("null");
        serde_json::from_str(text).map_err(|error| format!("state {text:?}: {error}"))
    }

    async fn wait_for_state(&self, wanted: impl Fn(&Value) -> bool, what: &str) -> Outcome {
        let deadline = Instant::now() + SETTLE;
        loop {
            let state = self.state().await?;
            if !state.is_null() && wanted(&state) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("the page never reached {what}: {state}"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// After a task's effect is there: a moment later, each counter still says it ran once.
    async fn ran_once(&self, counters: &[&str]) -> Outcome {
        tokio::time::sleep(SECOND_LOOK).await;
        let state = self.state().await?;
        for counter in counters {
            if state[counter] != 1 {
                return Err(format!(
                    "{counter} is {} (ran twice?): {state}",
                    state[counter]
                ));
            }
        }
        Ok(())
    }
}

/// Headless UI Listbox: open the assignee list and pick a person.
async fn headless_ui_listbox(agent: &Agent<'_>) -> Outcome {
    agent.navigate("headless-ui").await?;
    let button = agent
        .find("button", |name| name.contains("Choose an assignee"))
        .await?;
    agent.act("click_ax", json!({ "ref_id": button })).await?;
    let option = agent.find("option", |name| name == "Arlene McCoy").await?;
    agent.act("click_ax", json!({ "ref_id": option })).await?;
    agent
        .wait_for_state(
            |state| state["assignee"] == "Arlene McCoy",
            "assignee Arlene McCoy",
        )
        .await?;
    agent.ran_once(&["assigneeChanges"]).await
}

/// Headless UI Combobox: type the start of a fruit, pick it from the filtered options.
async fn headless_ui_combobox(agent: &Agent<'_>) -> Outcome {
    agent.navigate("headless-ui").await?;
    let input = agent.find("combobox", |name| name == "Fruit").await?;
    agent
        .act("type_ax", json!({ "ref_id": input, "text": "Apr" }))
        .await?;
    let option = agent.find("option", |name| name == "Apricot").await?;
    agent.act("click_ax", json!({ "ref_id": option })).await?;
    agent
        .wait_for_state(|state| state["fruit"] == "Apricot", "fruit Apricot")
        .await?;
    agent.ran_once(&["fruitChanges"]).await
}

/// Headless UI Menu: open the Options menu and choose Duplicate.
async fn headless_ui_menu(agent: &Agent<'_>) -> Outcome {
    agent.navigate("headless-ui").await?;
    let button = agent.find("button", |name| name == "Options").await?;
    agent.act("click_ax", json!({ "ref_id": button })).await?;
    let item = agent.find("menuitem", |name| name == "Duplicate").await?;
    agent.act("click_ax", json!({ "ref_id": item })).await?;
    agent
        .wait_for_state(
            |state| state["menuAction"] == "Duplicate",
            "menu action Duplicate",
        )
        .await?;
    agent.ran_once(&["menuActivations"]).await
}

/// Ant Design Select: choose a city with select_option. Its open list shows every city as text,
/// but its ARIA listbox holds only the highlighted option and its neighbours (rc-select), so
/// the cities further down have no ref to click: select_option is the agent's tool for it.
async fn antd_select(agent: &Agent<'_>) -> Outcome {
    agent.navigate("antd").await?;
    let select = agent.find("combobox", |name| name == "City").await?;
    agent
        .act(
            "select_option",
            json!({ "ref_id": select, "label": "Lisbon" }),
        )
        .await?;
    agent
        .wait_for_state(|state| state["city"] == "Lisbon", "city Lisbon")
        .await?;
    agent.ran_once(&["cityChanges"]).await
}

/// Ant Design DatePicker: type a date into the field and confirm it with Enter.
async fn antd_date_picker(agent: &Agent<'_>) -> Outcome {
    agent.navigate("antd").await?;
    let field = agent.find("textbox", |name| name == "Start date").await?;
    agent
        .act("type_ax", json!({ "ref_id": field, "text": "2026-03-14" }))
        .await?;
    agent.act("press_key", json!({ "key": "Enter" })).await?;
    agent
        .wait_for_state(|state| state["date"] == "2026-03-14", "date 2026-03-14")
        .await?;
    agent.ran_once(&["dateChanges"]).await
}

/// Material Web select: open the outlined select and choose a colour.
async fn material_web_select(agent: &Agent<'_>) -> Outcome {
    agent.navigate("material-web").await?;
    let select = agent
        .find("combobox", |name| name == "Favourite colour")
        .await?;
    agent.act("click_ax", json!({ "ref_id": select })).await?;
    let option = agent.find("option", |name| name == "Blue").await?;
    agent.act("click_ax", json!({ "ref_id": option })).await?;
    agent
        .wait_for_state(|state| state["color"] == "blue", "colour blue")
        .await?;
    agent.ran_once(&["colorChanges"]).await
}

/// Material Web checkbox: tick "Subscribe to the newsletter".
async fn material_web_checkbox(agent: &Agent<'_>) -> Outcome {
    agent.navigate("material-web").await?;
    // The label wraps the md-checkbox host; the checkbox the tree shows is the native input in
    // its shadow root, which no label names (Chromium names it nothing either): the agent
    // finds it by the label's text printed beside it.
    let checkbox = agent
        .find_by_text_beside("checkbox", |text| text.contains("Subscribe"))
        .await?;
    agent.act("click_ax", json!({ "ref_id": checkbox })).await?;
    agent
        .wait_for_state(|state| state["subscribed"] == true, "subscribed")
        .await?;
    agent.ran_once(&["subscribeChanges"]).await
}

/// flatpickr: open the calendar from the date field and click a day.
async fn flatpickr_calendar(agent: &Agent<'_>) -> Outcome {
    agent.navigate("flatpickr").await?;
    let field = agent
        .find("textbox", |name| name == "Departure date")
        .await?;
    agent.act("click_ax", json!({ "ref_id": field })).await?;
    // flatpickr's day cells are spans with an aria-label and tabindex -1 (generic, whose label
    // ARIA prohibits): the tree prints them `clickable` named by their number (docs/protocol/reading.md,
    // "Generic elements that keep their line: clickables"); the agent finds the month shown,
    // then the day.
    agent.find("combobox", |name| name == "Month").await?;
    let day = agent.find("clickable", |name| name == "14").await?;
    agent.act("click_ax", json!({ "ref_id": day })).await?;
    agent
        .wait_for_state(|state| state["date"] == "2026-03-14", "date 2026-03-14")
        .await?;
    agent.ran_once(&["changes"]).await
}

/// Quill: write a message in the editor and send it; Send reads Quill's own model.
async fn quill_editor(agent: &Agent<'_>) -> Outcome {
    agent.navigate("quill").await?;
    let editor = agent.find("textbox", |name| name == "Message").await?;
    agent
        .act(
            "type_ax",
            json!({ "ref_id": editor, "text": "Hello from allwright" }),
        )
        .await?;
    let send = agent.find("button", |name| name == "Send").await?;
    agent.act("click_ax", json!({ "ref_id": send })).await?;
    agent
        .wait_for_state(
            |state| state["sent"] == json!(["Hello from allwright"]),
            "the message sent",
        )
        .await?;
    tokio::time::sleep(SECOND_LOOK).await;
    let state = agent.state().await?;
    if state["text"] != "Hello from allwright\n"
        || state["sent"].as_array().map(Vec::len) != Some(1)
    {
        return Err(format!(
            "the editor's model is not the text typed once: {state}"
        ));
    }
    Ok(())
}

/// react-virtuoso: scroll the virtual list until order 150 is rendered, and open it.
async fn virtuoso_list(agent: &Agent<'_>) -> Outcome {
    agent.navigate("virtuoso").await?;
    let tree = agent.tree().await?;
    let nodes = nodes_with_refs(&tree);
    let first_row = nodes
        .iter()
        .position(|node| node.role == "button" && node.name == "Open order 1")
        .ok_or_else(|| format!("no first row in\n{tree}"))?;
    // The scroller is the nearest node above the first row that holds it.
    let scroller = nodes[..first_row]
        .iter()
        .rev()
        .find(|node| node.indent < nodes[first_row].indent)
        .ok_or_else(|| format!("no scrolling container above the rows in\n{tree}"))?
        .reference
        .clone();
    let mut target = None;
    let mut last_scroll = Value::Null;
    // The default step, 80% of the list's height, skips no row.
    for _ in 0..40 {
        last_scroll = agent
            .act("scroll", json!({ "ref_id": scroller, "direction": "down" }))
            .await?;
        let tree = agent.tree().await?;
        target = nodes_with_refs(&tree)
            .into_iter()
            .find(|node| node.role == "button" && node.name == "Open order 150");
        if target.is_some() {
            break;
        }
    }
    let Some(target) = target else {
        let tree = agent.tree().await?;
        return Err(format!(
            "order 150 never appeared while scrolling {scroller}; the last scroll: {last_scroll}; the tree:\n{tree}"
        ));
    };

    agent
        .act("click_ax", json!({ "ref_id": target.reference }))
        .await?;
    agent
        .wait_for_state(|state| state["opened"] == json!([150]), "order 150 opened")
        .await?;
    agent.ran_once(&["openings"]).await
}

/// SortableJS: tick one task of a list whose rows are drag handles' targets; nothing moves.
async fn sortable_list(agent: &Agent<'_>) -> Outcome {
    agent.navigate("sortable").await?;
    let checkbox = agent
        .find("checkbox", |name| name == "Review the pull request")
        .await?;
    agent.act("click_ax", json!({ "ref_id": checkbox })).await?;
    agent
        .wait_for_state(|state| state["done"] == json!(["review"]), "review done")
        .await?;
    agent.ran_once(&["toggles"]).await?;
    let state = agent.state().await?;
    if state["moves"] != 0 || state["order"] != json!(["write", "review", "deploy", "notes"]) {
        return Err(format!("the list moved: {state}"));
    }
    Ok(())
}

impl Agent<'_> {
    /// Runs drag and checks which route took it: real input in trusted mode (`method` "bidi"),
    /// except an HTML5 drag in Firefox, which takes the synthetic drag and drop events before
    /// anything is sent; the extension's own synthetic drag otherwise. Prints the call's time.
    async fn drag(&self, arguments: Value) -> Result<Value, String> {
        let started = Instant::now();
        let result = self.call("drag", json!(arguments)).await?;
        let elapsed = started.elapsed();
        let (input, method) = (
            result["input"].as_str().unwrap_or_default(),
            result["method"].as_str().unwrap_or_default(),
        );
        eprintln!(
            "drag timing: {} {} {method}: {} ms",
            self.browser.name(),
            self.mode.name(),
            elapsed.as_millis()
        );
        let expected = match (self.mode, self.browser, method) {
            (InputMode::Trusted, Browser::Firefox, "synthetic-html5") => "synthetic",
            (InputMode::Trusted, _, _) => "trusted",
            (InputMode::Synthetic, _, _) => "synthetic",
        };
        let method_fits = match input {
            "trusted" => method == "bidi",
            _ => method.starts_with("synthetic-"),
        };
        if input != expected || !method_fits {
            return Err(format!(
                "drag ran input {input} with method {method} in {} mode: {result}",
                self.mode.name()
            ));
        }
        if result["progress"] != "observed" {
            return Err(format!("drag showed no progress: {result}"));
        }
        Ok(result)
    }
}

/// `moved.after` of a drag's result names the list the item is now in.
fn moved_into(result: &Value, list: &str) -> Outcome {
    if result["moved"]["after"]["list"] == list {
        Ok(())
    } else {
        Err(format!(
            "the result does not say the item moved into {list}: {result}"
        ))
    }
}

/// HTML5 drag and drop: a card to another column (its drop handler reads the card's id from the
/// DataTransfer), then a card onto the column that refuses drops (no drop; dragend says none).
async fn html5_board(agent: &Agent<'_>) -> Outcome {
    agent.navigate("drag-html5").await?;
    let card = agent
        .find("listitem", |name| name == "Design the login page")
        .await?;
    let done = agent
        .find("listitem", |name| name == "Set up the repository")
        .await?;
    let result = agent
        .drag(json!({ "from_ref": card, "to_ref": done, "verbose": true }))
        .await?;
    moved_into(&result, "Done")?;
    // Dropped on the middle of the Done card: before or after it, as the pointer's last pixel
    // falls.
    agent
        .wait_for_state(
            |state| {
                state["columns"]["todo"] == json!(["api"])
                    && state["columns"]["done"]
                        .as_array()
                        .is_some_and(|cards| cards.len() == 2 && cards.contains(&json!("login")))
            },
            "the card in Done",
        )
        .await?;
    agent.ran_once(&["moves", "drops", "dragstarts"]).await?;
    if agent.state().await?["refusedEnds"] != 0 {
        return Err("the accepted drag ended as refused".into());
    }
    if agent.state().await?["dataSeen"] != "login" {
        return Err("the drop did not read the card's id from the DataTransfer".into());
    }
    let refused_card = agent
        .find("listitem", |name| name == "Write the API docs")
        .await?;
    let archived = agent
        .find("listitem", |name| name == "Old onboarding notes")
        .await?;
    let refused = agent
        .call(
            "drag",
            json!({ "from_ref": refused_card, "to_ref": archived, "verbose": true }),
        )
        .await?;
    agent
        .wait_for_state(|state| state["refusedEnds"] == 1, "a refused drag's end")
        .await?;
    let state = agent.state().await?;
    if state["drops"] != 1
        || state["columns"]["archived"] != json!(["old"])
        || state["dragstarts"] != 2
    {
        return Err(format!("the refusing column took a drop: {state}"));
    }
    if refused["moved"] != false {
        return Err(format!("a refused drag says something moved: {refused}"));
    }
    // Chromium's real drag and both synthetic drags end with dropEffect "none" (the synthetic
    // result says so; the real one is the browser's own).
    if refused["method"] != "bidi" && refused["dropEffect"] != "none" {
        return Err(format!(
            "a refused drag's dropEffect is not none: {refused}"
        ));
    }
    if refused["method"] == "bidi" && state["lastDropEffect"] != "none" {
        return Err(format!(
            "the real refused drag ended with another dropEffect: {state}"
        ));
    }
    Ok(())
}

/// dnd-kit's sortable list: the first song dragged onto the last one's place.
async fn dnd_kit_playlist(agent: &Agent<'_>) -> Outcome {
    agent.navigate("dnd-kit").await?;
    let song = agent.find("button", |name| name == "Blue in Green").await?;
    let last = agent.find("button", |name| name == "All Blues").await?;
    let result = agent
        .drag(json!({ "from_ref": song, "to_ref": last, "verbose": true }))
        .await?;
    agent
        .wait_for_state(
            |state| {
                state["order"]
                    == json!([
                        "So What",
                        "Freddie Freeloader",
                        "All Blues",
                        "Blue in Green"
                    ])
            },
            "Blue in Green last",
        )
        .await?;
    if result["moved"]["after"]["position"] != 4 {
        return Err(format!("the result does not say the song is 4th: {result}"));
    }
    agent.ran_once(&["moves"]).await
}

/// dnd-kit's keyboard mode, through press_key: Space lifts, ArrowDown moves, Space drops.
async fn dnd_kit_keyboard(agent: &Agent<'_>) -> Outcome {
    agent.navigate("dnd-kit").await?;
    let song = agent.find("button", |name| name == "So What").await?;
    agent
        .act("press_key", json!({ "ref_id": song, "key": " " }))
        .await?;
    agent
        .act("press_key", json!({ "key": "ArrowDown" }))
        .await?;
    agent.act("press_key", json!({ "key": " " })).await?;
    agent
        .wait_for_state(
            |state| {
                state["order"]
                    == json!([
                        "Blue in Green",
                        "Freddie Freeloader",
                        "So What",
                        "All Blues"
                    ])
            },
            "So What third",
        )
        .await?;
    agent.ran_once(&["moves"]).await
}

/// hello-pangea/dnd: a card from Backlog onto a card of In progress.
async fn hello_pangea_board(agent: &Agent<'_>) -> Outcome {
    agent.navigate("hello-pangea").await?;
    let card = agent
        .find("button", |name| name == "Fix the flaky test")
        .await?;
    let target = agent
        .find("button", |name| name == "Review the design")
        .await?;
    let result = agent
        .drag(json!({ "from_ref": card, "to_ref": target, "verbose": true }))
        .await?;
    agent
        .wait_for_state(
            |state| {
                state["columns"]["backlog"] == json!(["Update the changelog"])
                    && state["columns"]["progress"]
                        .as_array()
                        .is_some_and(|cards| cards.contains(&json!("Fix the flaky test")))
            },
            "the card in In progress",
        )
        .await?;
    moved_into(&result, "In progress")?;
    agent.ran_once(&["moves"]).await
}

/// SortableJS (HTML5 drag and drop, its default; or its pointer fallback): the first task's
/// handle dragged onto the third task's.
async fn sortable_reorder(agent: &Agent<'_>, page: &str) -> Outcome {
    agent.navigate(page).await?;
    let handle = agent
        .find("button", |name| name == "Drag Write the tests")
        .await?;
    let target = agent
        .find("button", |name| name == "Drag Deploy to staging")
        .await?;
    let result = agent
        .drag(json!({ "from_ref": handle, "to_ref": target, "verbose": true }))
        .await;
    if let Err(failure) = &result {
        if failure.contains("nativeDragUnfinished")
            && failure.contains("\"progress\":\"inconclusive\"")
        {
            return Err(format!("{UNFINISHED_NATIVE_DRAG}: {failure}"));
        }
    }
    let result = result?;
    // In Firefox with real input SortableJS's HTML5 mode takes the real press, then the
    // extension's drag events (src/browser_bridge/input.rs, `send_drag`); a hint says so.
    let press_then_synthetic = result["hints"].as_array().is_some_and(|hints| {
        hints.iter().any(|hint| {
            hint.as_str()
                .is_some_and(|hint| hint.starts_with("the press was real input"))
        })
    });
    let expected =
        page == "sortable" && agent.browser == Browser::Firefox && agent.mode == InputMode::Trusted;
    if press_then_synthetic != expected {
        return Err(format!(
            "the hint of a real press with synthetic drag events is {}expected here: {result}",
            if expected { "" } else { "not " }
        ));
    }
    agent
        .wait_for_state(
            |state| state["order"][0] != "write" && state["moves"] == 1,
            "Write the tests moved",
        )
        .await?;
    agent.ran_once(&["moves"]).await
}

async fn sortable_native_reorder(agent: &Agent<'_>) -> Outcome {
    sortable_reorder(agent, "sortable").await
}

async fn sortable_fallback_reorder(agent: &Agent<'_>) -> Outcome {
    sortable_reorder(agent, "sortable-fallback").await
}

/// jQuery UI sortable: the first priority dragged onto the third.
async fn jquery_ui_sortable(agent: &Agent<'_>) -> Outcome {
    agent.navigate("jquery-ui").await?;
    let first = agent
        .find("listitem", |name| name == "Security review")
        .await?;
    let third = agent.find("listitem", |name| name == "Search").await?;
    agent
        .drag(json!({ "from_ref": first, "to_ref": third }))
        .await?;
    agent
        .wait_for_state(
            |state| state["order"][0] != "security" && state["moves"] == 1,
            "Security review moved",
        )
        .await?;
    agent.ran_once(&["moves"]).await
}

/// A slider's thumb dragged by an offset: 66 px at 2.2 px per step is 30 steps, from 20 to 50.
async fn slider_by_offset(agent: &Agent<'_>) -> Outcome {
    agent.navigate("drag-offset").await?;
    let thumb = agent.find("slider", |name| name == "Volume").await?;
    agent
        .drag(json!({ "from_ref": thumb, "by": {"x": 66, "y": 0} }))
        .await?;
    agent
        .wait_for_state(
            |state| {
                state["volume"]
                    .as_i64()
                    .is_some_and(|volume| (49..=51).contains(&volume))
            },
            "volume 50",
        )
        .await?;
    agent.ran_once(&["volumeChanges"]).await
}

/// A splitter dragged by an offset: the left pane 100 px wider.
async fn splitter_by_offset(agent: &Agent<'_>) -> Outcome {
    agent.navigate("drag-offset").await?;
    let separator = agent
        .find("separator", |name| name == "Resize the folder pane")
        .await?;
    agent
        .drag(json!({ "from_ref": separator, "by": {"x": 100, "y": 0} }))
        .await?;
    agent
        .wait_for_state(
            |state| state["leftWidth"] == 300,
            "the left pane 300 px wide",
        )
        .await?;
    agent.ran_once(&["resizes"]).await
}

/// Downshift combobox: type the start of a country and pick it.
async fn downshift_combobox(agent: &Agent<'_>) -> Outcome {
    agent.navigate("downshift").await?;
    let input = agent.find("combobox", |name| name == "Country").await?;
    agent
        .act("type_ax", json!({ "ref_id": input, "text": "Fr" }))
        .await?;
    let option = agent.find("option", |name| name == "France").await?;
    agent.act("click_ax", json!({ "ref_id": option })).await?;
    agent
        .wait_for_state(|state| state["country"] == "France", "country France")
        .await?;
    agent.ran_once(&["changes"]).await
}

type WidgetTask =
    for<'a> fn(&'a Agent<'a>) -> std::pin::Pin<Box<dyn std::future::Future<Output = Outcome> + 'a>>;

macro_rules! widgets {
    ($(($family:literal, $library:literal, $task:path)),* $(,)?) => {
        &[$(($family, $library, |agent| Box::pin($task(agent)))),*]
    };
}

/// The matrix's rows: widget family, npm library (docs/widgets.md pins the versions), task.
const WIDGETS: &[(&str, &str, WidgetTask)] = widgets![
    ("Listbox", "@headlessui/react", headless_ui_listbox),
    ("Combobox", "@headlessui/react", headless_ui_combobox),
    ("Menu", "@headlessui/react", headless_ui_menu),
    ("Select", "antd", antd_select),
    ("DatePicker", "antd", antd_date_picker),
    ("Outlined select", "@material/web", material_web_select),
    ("Checkbox", "@material/web", material_web_checkbox),
    ("Calendar date picker", "flatpickr", flatpickr_calendar),
    ("Rich text editor", "quill", quill_editor),
    ("Virtual list", "react-virtuoso", virtuoso_list),
    ("Sortable list (drag handles)", "sortablejs", sortable_list),
    ("Combobox (useCombobox)", "downshift", downshift_combobox),
    ("Board (HTML5 drag and drop)", "native", html5_board),
    (
        "Sortable list (drag)",
        "@dnd-kit/sortable",
        dnd_kit_playlist
    ),
    (
        "Sortable list (keyboard)",
        "@dnd-kit/sortable",
        dnd_kit_keyboard
    ),
    ("Board (drag)", "@hello-pangea/dnd", hello_pangea_board),
    (
        "Sortable list (HTML5 drag)",
        "sortablejs",
        sortable_native_reorder
    ),
    (
        "Sortable list (fallback drag)",
        "sortablejs",
        sortable_fallback_reorder
    ),
    ("Sortable list (drag)", "jquery-ui", jquery_ui_sortable),
    ("Slider (drag by offset)", "native", slider_by_offset),
    ("Splitter (drag by offset)", "native", splitter_by_offset),
];

/// What a cell that fails for Firefox's unfinished HTML5 drag answers (sortable_reorder).
const UNFINISHED_NATIVE_DRAG: &str =
    "Firefox left the real HTML5 drag unfinished, and drag said so";

/// The cells that fail for a reason allwright cannot remove, each with the start of the reason
/// its task must give (docs/widgets.md, "When a cell cannot pass"): such a cell fails the matrix when it
/// passes or fails otherwise.
/// None today: SortableJS's default (HTML5) mode in Firefox with real input was one, until drag
/// sent the press alone and let the extension send the drag events from it
/// (src/browser_bridge/input.rs, `send_drag`).
const KNOWN_FAILURES: &[(&str, &str, Browser, InputMode, &str)] = &[];

/// Runs every widget's task in one session of `browser` in `mode`, prints the matrix's column,
/// and fails unless every cell passes, or fails as KNOWN_FAILURES says.
pub async fn widget_matrix(browser: Browser, mode: InputMode) {
    if !available(browser) {
        return;
    }
    let _turn = crate::lanes::turn(browser).await;
    let session = LaunchedMcp::start_with(browser, &["--input", mode.name(), "--dev"]).await;
    let agent = Agent {
        session: &session,
        browser,
        mode,
    };
    let mut unexpected = Vec::new();
    let mut lines = Vec::new();
    // ALLWRIGHT_WIDGETS=<text> runs only the rows whose library or family contains it (a
    // developer's shortcut; CI runs them all).
    let only = std::env::var("ALLWRIGHT_WIDGETS").unwrap_or_default();
    for (family, library, task) in WIDGETS
        .iter()
        .filter(|(family, library, _)| family.contains(&only) || library.contains(&only))
    {
        let started = Instant::now();
        let outcome = task(&agent).await;
        let known = KNOWN_FAILURES
            .iter()
            .find(
                |(known_family, known_library, known_browser, known_mode, _)| {
                    known_family == family
                        && known_library == library
                        && *known_browser == browser
                        && *known_mode == mode
                },
            )
            .map(|(.., reason)| *reason);
        let cell = match (&outcome, known) {
            (Ok(()), None) => "pass".to_owned(),
            (Err(reason), Some(expected)) if reason.starts_with(expected) => {
                format!("known failure: {expected}")
            }
            (Ok(()), Some(expected)) => {
                unexpected.push(format!(
                    "{library} {family}: passes now; remove it from KNOWN_FAILURES ({expected})"
                ));
                "pass (listed as a known failure)".to_owned()
            }
            (Err(reason), _) => {
                unexpected.push(format!("{library} {family}: {reason}"));
                format!("FAIL: {}", first_line(reason))
            }
        };
        let line = format!(
            "| {family} | {library} | {} | {} | {cell} | {:.1} s |",
            browser.name(),
            mode.name(),
            started.elapsed().as_secs_f64()
        );
        eprintln!("{line}");
        lines.push(line);
    }
    session.shutdown().await;
    eprintln!(
        "widget matrix, {} {}:\n| widget | library | browser | input | result | time |\n|---|---|---|---|---|---|\n{}",
        browser.name(),
        mode.name(),
        lines.join("\n")
    );
    assert!(
        unexpected.is_empty(),
        "{} {}: cells that failed:\n{}",
        browser.name(),
        mode.name(),
        unexpected.join("\n\n")
    );
}

fn first_line(reason: &str) -> &str {
    let line = reason.lines().next().unwrap_or_default();
    line.get(..200).unwrap_or(line)
}

#[test]
fn tree_lines_with_refs_are_read_with_their_escaped_names() {
    let tree = "main\n button \"Say \\\"hi\\\"\" [ref_3] type=\"button\"\n  generic [ref_9]\n text \"no ref\"";
    let nodes = nodes_with_refs(tree);
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    assert_eq!(
        (
            nodes[0].role.as_str(),
            nodes[0].name.as_str(),
            nodes[0].reference.as_str(),
            nodes[0].indent
        ),
        ("button", "Say \"hi\"", "ref_3", 1)
    );
    assert_eq!(
        (
            nodes[1].role.as_str(),
            nodes[1].name.as_str(),
            nodes[1].indent
        ),
        ("generic", "", 2)
    );
}
