//! The `dynashard` binary.

fn main() -> std::process::ExitCode {
    dynashard_cli::main()
}
