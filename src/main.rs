fn main() -> std::process::ExitCode {
    agent::cli::main()
}
