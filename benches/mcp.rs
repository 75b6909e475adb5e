//! Round trips through `nib mcp` over stdio, as a client sees them (budget: get_screenshot of a
//! landing page ≤ 25 ms). The release binary is spawned and spoken to with rmcp's client; the
//! time includes JSON-RPC framing, the pipe, base64 and the save to disk.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const LANDING_PAGE: &str = "Changan-Su__Apple-Style-Website-Editor__PinS.pen";

fn request(tool: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else { unreachable!("arguments are objects") };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)
}

async fn connect(root: &Path) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_nib"));
    command.arg("mcp").arg("--root").arg(root).env("RUST_LOG", "error").env("NIB_IMAGES", "offline");
    let (transport, _) = TokioChildProcess::builder(command).spawn().expect("nib mcp starts");
    ().serve(transport).await.expect("handshake")
}

/// The median of `samples` calls, printed beside criterion's figures.
fn median(samples: usize, mut call: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..samples).map(|_| call()).collect();
    times.sort_unstable();
    times[samples / 2]
}

fn benches(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("a folder");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(LANDING_PAGE),
        root.path().join("landing.pen"),
    )
    .expect("fixture");
    // One thread for the client, as an agent's client has: the server keeps the other core.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let client = runtime.block_on(connect(root.path()));
    let call = |tool: &str, arguments: Value| {
        let result = runtime.block_on(client.call_tool(request(tool, arguments))).expect("answer");
        assert_ne!(result.is_error, Some(true), "{tool}: {:?}", result.content);
    };
    call("open_document", json!({ "filePathOrTemplate": "landing.pen" }));
    let screenshot = json!({ "filePath": "landing.pen", "nodeId": "Qm8KM" });
    let mut flip = false;
    let mut design = move || {
        flip = !flip;
        // A rename: a real change that is saved, without changing what the screenshot costs.
        let name = if flip { "Landing A" } else { "Landing B" };
        json!({ "filePath": "landing.pen", "operations": format!("U(\"Qm8KM\", {{name: \"{name}\"}})") })
    };
    let timed = |tool: &str, arguments: Value| {
        let started = Instant::now();
        call(tool, arguments);
        started.elapsed()
    };
    let p50_shot = median(101, || timed("get_screenshot", screenshot.clone()));
    let p50_design = median(101, || timed("batch_design", design()));
    eprintln!("p50 over 101 calls: get_screenshot {p50_shot:.2?}, batch_design {p50_design:.2?}");

    c.bench_function("mcp/get_screenshot_landing_page", |b| b.iter(|| call("get_screenshot", screenshot.clone())));
    c.bench_function("mcp/batch_design_one_update", |b| b.iter(|| call("batch_design", design())));
    runtime.block_on(client.cancel()).expect("closes");
}

criterion_group!(mcp_benches, benches);
criterion_main!(mcp_benches);
