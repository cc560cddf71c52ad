//! Sites served by nginx from files: the web-like site, every document written to a directory
//! with its gzip copy beside it (`gzip_static`), the way a static site generator deploys; or a
//! directory of the machine as it is (the Rust toolchain's documentation). An nginx of the
//! machine (`nginx` on the PATH, or `/usr/sbin/nginx`) is started on a free port of 127.0.0.1
//! with its own configuration; it is stopped when dropped.

use std::io::Write as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::stop::terminate;
use crate::web::WebSite;
use crate::web_served::gzip;

/// A running nginx serving a generated site.
#[derive(Debug)]
pub(crate) struct Nginx {
    pub address: SocketAddr,
    child: Child,
    /// The site's files, the configuration and nginx's logs and temporary files.
    _directory: tempfile::TempDir,
}

impl Nginx {
    /// The nginx binary, if the machine has one.
    pub(crate) fn binary() -> Option<PathBuf> {
        let on_path = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|directory| directory.join("nginx"))
                .find(|candidate| candidate.is_file())
        });
        on_path.or_else(|| {
            let system = PathBuf::from("/usr/sbin/nginx");
            system.is_file().then_some(system)
        })
    }

    /// Writes `site` under a new directory and serves it with `binary`.
    pub(crate) fn start(binary: &Path, site: WebSite) -> anyhow::Result<Nginx> {
        let directory = tempfile::tempdir().context("nginx directory")?;
        let root = directory.path().join("site");
        for (document, path) in site.documents() {
            let html = site.render(document);
            let file = if path == "/" {
                root.join("index.html")
            } else {
                root.join(&path[1..])
            };
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("create {}", parent.display()))?;
            }
            std::fs::write(&file, &html).with_context(|| format!("write {}", file.display()))?;
            let mut compressed = file.clone().into_os_string();
            compressed.push(".gz");
            std::fs::write(&compressed, gzip(html.as_bytes()))
                .with_context(|| format!("write {}", file.display()))?;
        }
        // nginx's workers run as an unprivileged user when it is started as root: they must
        // be able to read the files.
        make_readable(directory.path())?;
        Nginx::launch(binary, directory, &root, None)
    }

    /// Serves the directory `root` as it is, nothing copied. When this process runs as root,
    /// so do nginx's workers: they only read, on 127.0.0.1, and the directory may lie where
    /// only root can enter (a toolchain under `/root`), which the unprivileged user nginx
    /// would otherwise switch to cannot read.
    pub(crate) fn serve(binary: &Path, root: &Path) -> anyhow::Result<Nginx> {
        let directory = tempfile::tempdir().context("nginx directory")?;
        let user = runs_as_root().then_some("root");
        Nginx::launch(binary, directory, root, user)
    }

    /// Starts nginx serving `root`, with its configuration, logs and temporary files in
    /// `directory`, its workers run as `user` when given.
    fn launch(
        binary: &Path,
        directory: tempfile::TempDir,
        root: &Path,
        user: Option<&str>,
    ) -> anyhow::Result<Nginx> {
        let address = free_address()?;
        let configuration = directory.path().join("nginx.conf");
        std::fs::File::create(&configuration)
            .and_then(|mut file| {
                file.write_all(config(directory.path(), root, address, user).as_bytes())
            })
            .context("write nginx.conf")?;
        let child = Command::new(binary)
            .arg("-p")
            .arg(directory.path())
            .arg("-c")
            .arg(&configuration)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("run {}", binary.display()))?;
        let mut nginx = Nginx {
            address,
            child,
            _directory: directory,
        };
        nginx.wait_until_listening()?;
        Ok(nginx)
    }

    fn wait_until_listening(&mut self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait()? {
                let mut message = String::new();
                if let Some(mut stderr) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut stderr, &mut message);
                }
                bail!("nginx exited with {status}: {}", message.trim());
            }
            if TcpStream::connect(self.address).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        bail!("nginx did not listen on {} within 10 s", self.address)
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its workers (killed, it would leave them running).
        let _ = terminate(&mut self.child, Duration::from_secs(5));
    }
}

/// Whether this process runs as root: `/proc/self` belongs to the effective user.
fn runs_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|metadata| metadata.uid() == 0)
}

/// A port of 127.0.0.1 free a moment ago.
fn free_address() -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").context("bind 127.0.0.1:0")?;
    Ok(listener.local_addr()?)
}

fn make_readable(directory: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut stack = vec![directory.to_path_buf()];
    while let Some(path) = stack.pop() {
        let metadata = std::fs::metadata(&path)?;
        let mode = if metadata.is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
        if metadata.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
        }
    }
    Ok(())
}

/// One worker (the crawler and the benchmark share the 2 cores), run as `user` when given,
/// keep-alive without a request limit, `gzip_static` for the precompressed files, the types
/// a browser needs to run a site's scripts and styles, no access log.
fn config(directory: &Path, root: &Path, address: SocketAddr, user: Option<&str>) -> String {
    let user = user
        .map(|user| format!("user {user};\n"))
        .unwrap_or_default();
    let directory = directory.display();
    format!(
        "{user}worker_processes 1;\n\
         daemon off;\n\
         master_process on;\n\
         pid {directory}/nginx.pid;\n\
         error_log {directory}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n\
         \x20 access_log off;\n\
         \x20 types {{ text/html html; text/css css; text/javascript js; application/json json; \
         image/svg+xml svg; image/png png; font/woff2 woff2; text/plain txt md; }}\n\
         \x20 default_type application/octet-stream;\n\
         \x20 sendfile on;\n\
         \x20 tcp_nopush on;\n\
         \x20 keepalive_requests 1000000;\n\
         \x20 client_body_temp_path {directory}/client_body;\n\
         \x20 proxy_temp_path {directory}/proxy;\n\
         \x20 fastcgi_temp_path {directory}/fastcgi;\n\
         \x20 uwsgi_temp_path {directory}/uwsgi;\n\
         \x20 scgi_temp_path {directory}/scgi;\n\
         \x20 server {{\n\
         \x20   listen {address};\n\
         \x20   root {};\n\
         \x20   index index.html;\n\
         \x20   gzip_static on;\n\
         \x20   gzip_vary on;\n\
         \x20 }}\n\
         }}\n",
        root.display()
    )
}
