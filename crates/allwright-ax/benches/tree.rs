//! Benchmark (not a timed test): the accessibility tree of synthetic pages of about 1k, 10k and
//! 100k elements, built with the in-memory DOM's builder.
//!
//! `cargo bench -p allwright-ax --bench tree` (optionally `-- 1000 10000` to pick the sizes).
//!
//! Timed separately, each several times, reporting the median and nanoseconds per element:
//! - tree build: `Context::new` + `build_tree` (roles, names, states, hidden, composed tree);
//! - text: `render_text_tree` of the built tree (the agent's `get_accessibility_tree` output);
//! - JSON and YAML: `write_snapshot` of the built tree (the structured snapshot);
//! - end to end: `generate_accessibility_tree` (build + text), what the glue calls.
//!
//! The in-memory DOM computes its own styles and id index lazily on first use; one warm-up run
//! pays for that, so the figures are the engine's, not the test DOM's. In a browser, add the cost
//! of gathering the DOM facts across the WASM boundary (see docs/performance.md).

use std::hint::black_box;
use std::time::{Duration, Instant};

use allwright_ax::memdom::MemDom;
use allwright_ax::text::render_text_tree;
use allwright_ax::{
    build_tree, generate_accessibility_tree, write_snapshot, BuildOptions, Context, Dom, Format,
    NodeId, SnapshotDocument, TextTreeOptions,
};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary without it, in a
    // debug build: then only a quick smoke run, so that the tests stay fast.
    let benchmarking = arguments.iter().any(|argument| argument == "--bench");
    let requested: Vec<usize> = arguments
        .iter()
        .filter_map(|argument| argument.parse().ok())
        .collect();
    let sizes = match (benchmarking, requested.is_empty()) {
        (_, false) => requested,
        (true, true) => vec![1_000, 10_000, 100_000],
        (false, true) => vec![1_000],
    };
    println!(
        "allwright-ax tree benchmark (median of N runs; ns/el = nanoseconds per DOM element)\n"
    );
    println!(
        "{:>8} {:>8} {:>3} | {:>19} | {:>19} | {:>19} | {:>19} | {:>19} | {:>9} {:>10}",
        "elements",
        "ax nodes",
        "N",
        "build ms (ns/el)",
        "text ms (ns/el)",
        "json ms (ns/el)",
        "yaml ms (ns/el)",
        "end-to-end (ns/el)",
        "text KB",
        "json KB"
    );
    for size in sizes {
        let dom = synthetic_page(size);
        let elements = dom.all_elements().len();
        let runs = match elements {
            _ if !benchmarking => 1,
            0..=5_000 => 31,
            5_001..=50_000 => 11,
            _ => 5,
        };
        let options = TextTreeOptions::default();
        let mut reference = |node: NodeId| format!("ref_{}", node.0);

        // Warm-up: the in-memory DOM's lazy style and id computation, caches, allocator.
        let context = Context::new(&dom);
        let tree = build_tree(&context, BuildOptions::default());
        drop(context);
        let ax_nodes = tree.nodes.len();

        let build = median(runs, || {
            let context = Context::new(&dom);
            black_box(build_tree(&context, BuildOptions::default()));
        });
        let mut text_bytes = 0;
        let text = median(runs, || {
            let rendered = render_text_tree(&tree, &options, None, &mut reference);
            text_bytes = rendered.as_ref().map_or(0, |text| text.tree.len());
            black_box(rendered).ok();
        });
        let document = SnapshotDocument {
            context_id: "bench".to_string(),
            parent_context_id: None,
            url: "https://example.test/".to_string(),
            title: "Benchmark".to_string(),
            tree: &tree,
        };
        let mut json_bytes = 0;
        let json = median(runs, || {
            let written = write_snapshot(std::slice::from_ref(&document), Format::Json);
            json_bytes = written.len();
            black_box(written);
        });
        let yaml = median(runs, || {
            black_box(write_snapshot(
                std::slice::from_ref(&document),
                Format::Yaml,
            ));
        });
        let end_to_end = median(runs, || {
            black_box(generate_accessibility_tree(
                &dom,
                None,
                &options,
                &mut reference,
            ))
            .ok();
        });
        let cell = |duration: Duration| {
            format!(
                "{:>8.2} ({:>7.0})",
                duration.as_secs_f64() * 1e3,
                duration.as_nanos() as f64 / elements as f64
            )
        };
        println!(
            "{:>8} {:>8} {:>3} | {:>19} | {:>19} | {:>19} | {:>19} | {:>19} | {:>9.0} {:>10.0}",
            elements,
            ax_nodes,
            runs,
            cell(build),
            cell(text),
            cell(json),
            cell(yaml),
            cell(end_to_end),
            text_bytes as f64 / 1024.0,
            json_bytes as f64 / 1024.0
        );
    }
}

/// Runs `work` `runs` times and returns the median duration.
fn median(runs: usize, mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// A page of at least `target` elements: a header with navigation, then repeated sections mixing
/// what real pages have (headings, paragraphs with inline markup, labelled form fields, buttons,
/// lists, a data table, nested layout divs, images, a hidden region and a closed disclosure).
fn synthetic_page(target: usize) -> MemDom {
    let mut dom = MemDom::new();
    let document = dom.document();
    let html = dom.append_element(document, "html", &[("lang", "en")]);
    let head = dom.append_element(html, "head", &[]);
    let title = dom.append_element(head, "title", &[]);
    dom.append_text(title, "Synthetic benchmark page");
    let body = dom.append_element(html, "body", &[]);

    let header = dom.append_element(body, "header", &[]);
    let nav = dom.append_element(header, "nav", &[("aria-label", "Main")]);
    let menu = dom.append_element(nav, "ul", &[]);
    for item in ["Home", "Products", "Pricing", "Docs", "Blog", "Contact"] {
        let li = dom.append_element(menu, "li", &[]);
        let href = format!("/{}", item.to_ascii_lowercase());
        let link = dom.append_element(li, "a", &[("href", &href)]);
        dom.append_text(link, item);
    }
    let main = dom.append_element(body, "main", &[]);

    // Every section has the same number of elements: count the first one, then add up.
    let mut count = dom.all_elements().len();
    append_section(&mut dom, main, 0);
    let per_section = dom.all_elements().len() - count;
    count += per_section;
    let mut section_index = 1;
    while count < target {
        append_section(&mut dom, main, section_index);
        count += per_section;
        section_index += 1;
    }
    dom
}

/// Appends one section of about 110 elements.
fn append_section(dom: &mut MemDom, parent: NodeId, index: usize) {
    let section_id = format!("s{index}");
    let heading_id = format!("h{index}");
    let section = dom.append_element(
        parent,
        "section",
        &[("id", &section_id), ("aria-labelledby", &heading_id)],
    );
    let heading = dom.append_element(section, "h2", &[("id", &heading_id)]);
    dom.append_text(heading, &format!("Section {index}: quarterly results"));

    // Paragraphs with inline markup and a link.
    for paragraph in 0..3 {
        let p = dom.append_element(section, "p", &[]);
        dom.append_text(p, "Revenue grew in every region this quarter, ");
        let strong = dom.append_element(p, "strong", &[]);
        dom.append_text(strong, "led by the north");
        dom.append_text(p, ", while costs stayed ");
        let em = dom.append_element(p, "em", &[]);
        dom.append_text(em, "flat");
        dom.append_text(p, ". ");
        let href = format!("/report/{index}/{paragraph}");
        let link = dom.append_element(p, "a", &[("href", &href)]);
        dom.append_text(link, "Read the full report");
    }

    // A form with labelled fields, a select, a checkbox and buttons.
    let form = dom.append_element(section, "form", &[("aria-label", "Filter")]);
    for (field, kind) in [("name", "text"), ("email", "email"), ("age", "number")] {
        let id = format!("{field}-{index}");
        let label = dom.append_element(form, "label", &[("for", &id)]);
        dom.append_text(label, field);
        dom.append_element(
            form,
            "input",
            &[("id", &id), ("type", kind), ("placeholder", field)],
        );
    }
    let wrapping = dom.append_element(form, "label", &[]);
    dom.append_element(wrapping, "input", &[("type", "checkbox"), ("checked", "")]);
    dom.append_text(wrapping, "Subscribe");
    let select = dom.append_element(form, "select", &[("aria-label", "Region")]);
    for region in ["North", "South", "East", "West"] {
        let option = dom.append_element(select, "option", &[]);
        dom.append_text(option, region);
    }
    let submit = dom.append_element(form, "button", &[("type", "submit")]);
    dom.append_text(submit, "Apply");
    let reset = dom.append_element(form, "button", &[("type", "reset")]);
    dom.append_text(reset, "Reset");

    // A list.
    let list = dom.append_element(section, "ul", &[]);
    for item in 0..5 {
        let li = dom.append_element(list, "li", &[]);
        dom.append_text(li, &format!("Highlight {item} of section {index}"));
    }

    // A data table.
    let table = dom.append_element(section, "table", &[]);
    let caption = dom.append_element(table, "caption", &[]);
    dom.append_text(caption, "Sales by region");
    let thead = dom.append_element(table, "thead", &[]);
    let row = dom.append_element(thead, "tr", &[]);
    for column in ["Region", "Q1", "Q2"] {
        let th = dom.append_element(row, "th", &[("scope", "col")]);
        dom.append_text(th, column);
    }
    let tbody = dom.append_element(table, "tbody", &[]);
    for region in ["North", "South", "East", "West"] {
        let row = dom.append_element(tbody, "tr", &[]);
        let th = dom.append_element(row, "th", &[("scope", "row")]);
        dom.append_text(th, region);
        for value in ["12", "15"] {
            let td = dom.append_element(row, "td", &[]);
            dom.append_text(td, value);
        }
    }

    // Nested layout divs around a card with an image and an icon button.
    let mut container = section;
    for depth in 0..5 {
        let class = format!("layout-{depth}");
        container = dom.append_element(container, "div", &[("class", &class)]);
    }
    dom.append_element(
        container,
        "img",
        &[("src", "chart.png"), ("alt", "Quarterly chart")],
    );
    let icon_button = dom.append_element(container, "button", &[("aria-label", "Close card")]);
    dom.append_element(icon_button, "svg", &[("aria-hidden", "true")]);
    let span = dom.append_element(container, "span", &[]);
    dom.append_text(span, "Updated today");

    // A hidden region and a closed disclosure: walked but excluded.
    let hidden = dom.append_element(section, "div", &[("aria-hidden", "true")]);
    let hidden_text = dom.append_element(hidden, "p", &[]);
    dom.append_text(hidden_text, "Decorative duplicate");
    let details = dom.append_element(section, "details", &[]);
    let summary = dom.append_element(details, "summary", &[]);
    dom.append_text(summary, "More details");
    let more = dom.append_element(details, "p", &[]);
    dom.append_text(more, "Shown when the disclosure is open.");
}
