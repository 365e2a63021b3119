//! `stub-server [--port N]`: a thin shell over the library (see `lib.rs`).

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let mut port = 8080u16;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().map(|p| p.parse())) {
            ("--port", Some(Ok(p))) => port = p,
            _ => {
                eprintln!("usage: stub-server [--port N]");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{port}: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let Ok(address) = listener.local_addr() else {
        return std::process::ExitCode::from(2);
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{address}");
        let _ = out.flush();
    }
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match stub_server::serve(listener, shutdown).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
