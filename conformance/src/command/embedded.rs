//! The built-in target: the reference server, started in-process on an
//! ephemeral port of 127.0.0.1, with its shipped profile and snapshots
//! (what a run or `choices` without `--profile` means outside CI).

use std::path::Path;
use std::process::ExitCode;

use conformance_model::profile::Profile;

use super::fail;

/// The shipped profile of the reference server's default fixture.
pub const SHIPPED_PROFILE: &str = include_str!("../../profiles/reference.yaml");
/// Its name in messages and reports.
pub const SHIPPED_PROFILE_NAME: &str = "conformance/profiles/reference.yaml";
/// The shipped snapshots.
pub const SHIPPED_SNAPSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/snapshots");

/// The profile at `path`, or the shipped one with the reference server
/// started in-process (and returned, to be shut down).
pub async fn load_or_embedded(
    path: Option<&Path>,
) -> Result<(Profile, Option<reference_server::RunningServer>), ExitCode> {
    match path {
        Some(path) => Profile::from_path(path)
            .map(|p| (p, None))
            .map_err(|e| fail(&e.to_string())),
        None => {
            let env = |name: &str| std::env::var(name).ok();
            let mut profile = Profile::from_yaml_str(SHIPPED_PROFILE, SHIPPED_PROFILE_NAME, &env)
                .map_err(|e| fail(&e.to_string()))?;
            let server =
                reference_server::Server::start(reference_server::ServerOptions::default())
                    .await
                    .map_err(|e| fail(&format!("cannot start the reference server: {e}")))?;
            profile.base_url = server.base_url();
            Ok((profile, Some(server)))
        }
    }
}
