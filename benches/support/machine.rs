//! The machine around a benchmark: how much of its cores other processes took during a
//! measurement, and a local proxy that delays responses as a network would.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// What else kept the machine busy during a measurement: DynamoDB Local and this benchmark share
/// the machine's cores with every other process, and a build running meanwhile skews the ratios
/// (it takes the cores that concurrent reads need most).
pub struct Watch {
    started: Instant,
    machine: f64,
    ours: f64,
}

impl Watch {
    pub fn start() -> Self {
        let (own, children) = cpu_seconds();
        Watch { started: Instant::now(), machine: machine_busy_seconds(), ours: own + children }
    }

    /// Prints the share of the cores that other processes used since [`Watch::start`].
    pub fn report(&self) {
        let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        let (own, children) = cpu_seconds();
        let others = (machine_busy_seconds() - self.machine) - (own + children - self.ours);
        let share = (others / (self.started.elapsed().as_secs_f64() * cores)).max(0.0);
        let verdict = if share > 0.1 { ": not a reliable ratio" } else { "" };
        println!("  (other processes used {:.0}% of the {cores} cores meanwhile{verdict})", share * 100.0);
    }
}

/// CPU seconds the whole machine spent busy so far (all cores; Linux only, 0 elsewhere), stolen
/// time included.
pub fn machine_busy_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(line) = stat.lines().find(|line| line.starts_with("cpu ")) else { return 0.0 };
    let ticks: Vec<f64> = line.split_whitespace().skip(1).filter_map(|field| field.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal
    let busy: f64 = [0, 1, 2, 5, 6, 7].iter().filter_map(|&field| ticks.get(field)).sum();
    busy / 100.0
}

/// CPU seconds (user and system) used so far by this process, and by the processes it started
/// (DynamoDB Local, unless `AWS_ENDPOINT_URL_DYNAMODB` points elsewhere). Linux only; zeros elsewhere.
pub fn cpu_seconds() -> (f64, f64) {
    // Fields after the command name in /proc/<pid>/stat: state, ppid, ..., utime (12th), stime.
    let stat = |pid: &str| -> Option<(u32, f64)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
        Some((fields.get(1)?.parse().ok()?, ticks / 100.0))
    };
    let own = stat("self").map_or(0.0, |(_, seconds)| seconds);
    let processes: Vec<(u32, u32, f64)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let (parent, seconds) = stat(&pid.to_string())?;
            Some((pid, parent, seconds))
        })
        .collect();
    let mut family = vec![std::process::id()];
    let mut children = 0.0;
    while let Some(parent) = family.pop() {
        for &(pid, _, seconds) in processes.iter().filter(|process| process.1 == parent) {
            children += seconds;
            family.push(pid);
        }
    }
    (own, children)
}

/// The simulated network latency of the reads: `SHARDED_LISTING_LATENCY_MS`, unset or 0 for none.
#[allow(dead_code)] // not every benchmark takes its latency from the environment
pub fn latency() -> Option<Duration> {
    let millis: u64 = std::env::var("SHARDED_LISTING_LATENCY_MS").ok()?.trim().parse().ok()?;
    (millis > 0).then(|| Duration::from_millis(millis))
}

/// Forwards connections to `upstream` (`http://host:port`), handing every chunk of the responses
/// on `delay` after it arrived: a stand-in for the network between a client and DynamoDB, which
/// DynamoDB Local on the same machine lacks. Returns the proxy's endpoint.
pub fn delaying_proxy(upstream: &str, delay: Duration) -> String {
    let upstream = upstream.trim_start_matches("http://").trim_end_matches('/').to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").expect("a proxy port");
    let endpoint = format!("http://{}", listener.local_addr().expect("the proxy's address"));
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(&upstream) else { continue };
            let (Ok(mut requests), Ok(mut forward)) = (client.try_clone(), server.try_clone()) else {
                continue;
            };
            let (mut responses, mut back) = (server, client);
            let _ = (back.set_nodelay(true), forward.set_nodelay(true));
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut requests, &mut forward);
                let _ = forward.shutdown(Shutdown::Write);
            });
            let (sender, receiver) = std::sync::mpsc::channel::<(Instant, Vec<u8>)>();
            std::thread::spawn(move || {
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read @ 1..) = responses.read(&mut buffer) {
                    if sender.send((Instant::now() + delay, buffer[..read].to_vec())).is_err() {
                        break;
                    }
                }
            });
            std::thread::spawn(move || {
                for (due, chunk) in receiver {
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                    if back.write_all(&chunk).is_err() {
                        break;
                    }
                }
                let _ = back.shutdown(Shutdown::Write);
            });
        }
    });
    endpoint
}

/// CPU seconds each thread of this process and of the processes it started has used so far, by
/// `(pid, thread id)`, with the thread's name. Linux only; empty elsewhere. A thread whose share
/// of the wall clock nears 100% binds whatever waits on it, however many cores stay idle.
#[allow(dead_code)] // only the benchmarks of many workers read threads
pub fn thread_seconds() -> std::collections::HashMap<(u32, u32), (String, f64)> {
    let read = |path: String| -> Option<(String, f64)> {
        let text = std::fs::read_to_string(path).ok()?;
        let (head, tail) = text.rsplit_once(')')?;
        let name = head.split_once('(')?.1.to_owned();
        let fields: Vec<&str> = tail.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
        Some((name, ticks / 100.0))
    };
    let parent_of = |pid: u32| -> Option<u32> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        text.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
    };
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect();
    let mut family = vec![std::process::id()];
    let mut threads = std::collections::HashMap::new();
    while let Some(pid) = family.pop() {
        for task in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
            let Some(tid) = task.file_name().to_str().and_then(|tid| tid.parse().ok()) else { continue };
            if let Some(entry) = read(format!("/proc/{pid}/task/{tid}/stat")) {
                threads.insert((pid, tid), entry);
            }
        }
        family.extend(all.iter().copied().filter(|child| parent_of(*child) == Some(pid)));
    }
    threads
}

/// The thread that used the most CPU between two readings of [`thread_seconds`]: its name and
/// its share of `wall` seconds (1.0: a whole core all along).
#[allow(dead_code)] // only the benchmarks of many workers read threads
pub fn busiest_thread(
    before: &std::collections::HashMap<(u32, u32), (String, f64)>,
    after: &std::collections::HashMap<(u32, u32), (String, f64)>,
    wall: f64,
) -> (String, f64) {
    after
        .iter()
        .map(|(id, (name, seconds))| {
            let earlier = before.get(id).map_or(0.0, |(_, seconds)| *seconds);
            (name.clone(), (seconds - earlier) / wall.max(f64::EPSILON))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or_default()
}
