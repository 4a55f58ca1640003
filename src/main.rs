fn main() -> std::process::ExitCode {
    bmad_party::program::main()
}
