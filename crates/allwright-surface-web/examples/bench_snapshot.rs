//! Benchmark (not a test): times `accessibility_snapshot` over WebDriver BiDi on given pages.
//!
//! ```text
//! cargo run --release -p allwright-surface-web --example bench_snapshot -- \
//!     [--browser chromium|firefox] [--runs N] URL...
//! ```
//!
//! Launches the browser headless with a temporary profile, and for each URL: navigates, takes one
//! snapshot (cold: the collector is installed in each document's sandbox) and N more (warm), all
//! JSON, and prints one line of JSON per URL: `{"url", "browser", "coldMs", "warmMs" (median),
//! "warmSamples", "chars", "documents"}`. tests/browser/bench.mjs runs it on its generated pages
//! and puts the numbers beside the extension's and Playwright's.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use allwright_surface_web::launch::{
    log_tail, ChromiumLaunchOptions, FirefoxLaunchOptions, LaunchedBrowser,
};
use allwright_surface_web::{accessibility_snapshot, SnapshotOptions};
use serde_json::{json, Value};

/// Generous: a 100k-element page takes seconds.
const PATIENCE: Duration = Duration::from_secs(120);

struct Arguments {
    browser: String,
    runs: usize,
    urls: Vec<String>,
}

fn parse_arguments() -> Result<Arguments, String> {
    let mut parsed = Arguments {
        browser: "chromium".to_owned(),
        runs: 11,
        urls: Vec::new(),
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--browser" => parsed.browser = arguments.next().ok_or("--browser needs a name")?,
            "--runs" => {
                parsed.runs = arguments
                    .next()
                    .and_then(|runs| runs.parse().ok())
                    .filter(|runs| *runs > 0)
                    .ok_or("--runs needs a positive number")?;
            }
            url => parsed.urls.push(url.to_owned()),
        }
    }
    if parsed.urls.is_empty() {
        return Err("give at least one URL".to_owned());
    }
    Ok(parsed)
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

async fn launch(browser: &str, folder: &std::path::Path) -> Result<LaunchedBrowser, String> {
    for sub in ["tmp", "config", "cache", "home"] {
        std::fs::create_dir_all(folder.join(sub)).map_err(|error| error.to_string())?;
    }
    // Browsers write into TMPDIR, XDG folders and HOME: all of them go to the temp folder.
    let environment: Vec<(String, OsString)> = vec![
        ("TMPDIR".into(), folder.join("tmp").into()),
        ("XDG_CONFIG_HOME".into(), folder.join("config").into()),
        ("XDG_CACHE_HOME".into(), folder.join("cache").into()),
        ("HOME".into(), folder.join("home").into()),
    ];
    let launched = match browser {
        "chromium" => {
            let mut options = ChromiumLaunchOptions::new(folder.join("profile"));
            options.environment = environment;
            options.log_path = Some(folder.join("browser.log"));
            LaunchedBrowser::launch_chromium(&options).await
        }
        "firefox" => {
            let mut options = FirefoxLaunchOptions::new(folder.join("profile"));
            options.environment = environment;
            options.log_path = Some(folder.join("browser.log"));
            LaunchedBrowser::launch_firefox(&options).await
        }
        other => return Err(format!("unknown browser {other}: use chromium or firefox")),
    };
    launched.map_err(|error| {
        format!(
            "launch {browser}: {error}\n{}",
            log_tail(&folder.join("browser.log"), 20)
        )
    })
}

async fn measure(
    launched: &LaunchedBrowser,
    browser: &str,
    url: &str,
    runs: usize,
) -> Result<Value, String> {
    let bidi = launched.bidi();
    let tab = bidi.first_tab().await.map_err(|error| error.to_string())?;
    bidi.navigate(&tab, url, PATIENCE)
        .await
        .map_err(|error| format!("navigate {url}: {error}"))?;
    let options = SnapshotOptions {
        timeout: PATIENCE,
        ..SnapshotOptions::default()
    };
    let mut samples = Vec::new();
    let mut snapshot = String::new();
    for _ in 0..=runs {
        let started = Instant::now();
        snapshot = accessibility_snapshot(bidi, &tab, &options)
            .await
            .map_err(|error| format!("snapshot of {url}: {error}"))?;
        samples.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let documents = serde_json::from_str::<Value>(&snapshot)
        .map(|parsed| parsed["documents"].as_array().map_or(0, Vec::len))
        .unwrap_or(0);
    Ok(json!({
        "url": url,
        "browser": browser,
        "coldMs": samples[0],
        "warmMs": median(&samples[1..]),
        "warmSamples": &samples[1..],
        "chars": snapshot.len(),
        "documents": documents,
    }))
}

async fn try_main() -> Result<(), String> {
    let arguments = parse_arguments()?;
    // A short name: Chromium puts its singleton socket under TMPDIR (set to a folder in here),
    // and a Unix socket path over 107 bytes makes it exit at start, which happened under
    // tests/browser/bench.mjs, whose own TMPDIR is a temporary folder already.
    let folder = tempfile::Builder::new()
        .prefix("awbs-")
        .tempdir()
        .map_err(|error| error.to_string())?;
    let launched = launch(&arguments.browser, folder.path()).await?;
    let mut outcome = Ok(());
    for url in &arguments.urls {
        match measure(&launched, &arguments.browser, url, arguments.runs).await {
            Ok(line) => println!("{line}"),
            Err(error) => {
                outcome = Err(error);
                break;
            }
        }
    }
    launched.shutdown().await;
    outcome
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match try_main().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench_snapshot: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}
