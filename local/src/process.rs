//! Running DynamoDB Local as a child process that cannot outlive its parent.
//!
//! Java runs under a small `sh` watchdog that reads its standard input from a pipe held by this
//! process. When the pipe closes (the handle is dropped, the program exits, or it is killed, even
//! with SIGKILL and without running destructors of statics), `read` returns and the watchdog
//! kills Java and removes its log file. The watchdog ignores Ctrl-C, which a terminal sends to
//! the whole process group: the parent decides, and the watchdog follows when the pipe closes.
//!
//! Should the watchdog itself die first, Java follows it: on Linux the kernel kills Java the
//! moment its parent dies (`setpriv --pdeathsig KILL`, from util-linux); where `setpriv` is
//! missing, a poller started by the watchdog kills Java within a second of the watchdog's death
//! (its `ps` must support `-o stat= -p` to see a watchdog that was killed but not yet reaped).

use crate::error::LocalError;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

// Ctrl-C in a terminal interrupts the whole foreground process group. The watchdog ignores it
// (as Java, a background job of a non-interactive shell, does): it stops Java when its parent
// goes, however the parent goes. Java is started with the parent-death signal where `setpriv`
// can set it; elsewhere a poller kills Java when the watchdog is gone (killed on its own).
const WATCHDOG: &str = r#"
trap '' INT QUIT
guard=
if command -v setpriv >/dev/null 2>&1 && setpriv --pdeathsig KILL true 2>/dev/null; then
    guard="setpriv --pdeathsig KILL"
fi
$guard "$4" -Djava.library.path="$1/DynamoDBLocal_lib" -jar "$1/DynamoDBLocal.jar" \
    -inMemory -disableTelemetry -port "$2" >"$3" 2>&1 </dev/null &
pid=$!
poller=
if [ -z "$guard" ]; then
    watchdog=$$
    (
        trap '' INT QUIT
        while kill -0 "$watchdog" 2>/dev/null \
            && [ "$(ps -o stat= -p "$watchdog" 2>/dev/null | cut -c1)" != Z ]; do sleep 1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$3"
    ) </dev/null >/dev/null 2>&1 &
    poller=$!
fi
read -r _ignored
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -n "$poller" ] && kill "$poller" 2>/dev/null
rm -f "$3"
"#;

/// A running DynamoDB Local process; stops it when dropped.
#[derive(Debug)]
pub struct Process {
    watchdog: Child,
    lifeline: Option<ChildStdin>,
    port: u16,
    log: PathBuf,
}

impl Process {
    /// Starts DynamoDB Local from `jar_dir` with `java` on a free loopback port, and waits until it
    /// answers HTTP (at most `timeout`).
    pub fn start(java: &Path, jar_dir: &Path, timeout: Duration) -> Result<Self, LocalError> {
        check_java(java)?;
        let port = free_port()?;
        let log = std::env::temp_dir().join(format!("dynashard-local-{}-{port}.log", std::process::id()));
        let mut watchdog = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg("dynashard-local")
            .arg(jar_dir)
            .arg(port.to_string())
            .arg(&log)
            .arg(java)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| LocalError::io("starting the DynamoDB Local watchdog", e))?;
        let lifeline = watchdog.stdin.take();
        let mut process = Process { watchdog, lifeline, port, log };
        process.wait_until_ready(timeout)?;
        Ok(process)
    }

    /// The loopback port DynamoDB Local listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops DynamoDB Local and waits for it to exit.
    pub fn stop(&mut self) {
        if self.lifeline.take().is_some() {
            let _ = self.watchdog.wait();
            // The watchdog removes the log; one killed on its own could not.
            let _ = std::fs::remove_file(&self.log);
        }
    }

    fn wait_until_ready(&mut self, timeout: Duration) -> Result<(), LocalError> {
        let started = Instant::now();
        loop {
            if answers_http(self.port) {
                return Ok(());
            }
            if let Ok(Some(status)) = self.watchdog.try_wait() {
                return Err(self.start_error(format!("the process exited ({status})")));
            }
            if started.elapsed() > timeout {
                let error = self.start_error(format!("no answer within {} s", timeout.as_secs()));
                self.stop();
                return Err(error);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn start_error(&self, reason: String) -> LocalError {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        let log = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
        LocalError::Start { reason, log }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
    }
}

fn check_java(java: &Path) -> Result<(), LocalError> {
    match Command::new(java).arg("-version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Err(LocalError::JavaNotFound { java: java.to_owned() })
        }
        Err(error) => Err(LocalError::io("running java", error)),
    }
}

fn free_port() -> Result<u16, LocalError> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .map_err(|e| LocalError::io("finding a free port", e))?;
    let port = listener.local_addr().map_err(|e| LocalError::io("finding a free port", e))?.port();
    Ok(port)
}

/// Whether something on `port` answers an HTTP request with an HTTP response.
fn answers_http(port: u16) -> bool {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_millis(200)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 8];
    stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.")
}
