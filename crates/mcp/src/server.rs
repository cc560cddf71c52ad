//! The server over stdio: what it says of itself, its resources, and its life, which ends
//! when its client closes stdin or a signal comes (every running tool stopped at once).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use rmcp::model::{
    Implementation, ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool_handler};
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;

use crate::paths::AllowedDirs;
use crate::resources;
use crate::settings::McpSettings;
use crate::tools::Sitemapper;

/// What the server tells an assistant when it connects.
const INSTRUCTIONS: &str = "sitemapper crawls websites and writes their XML sitemaps, audits \
sites for their owners, and explains why a URL is or is not in a sitemap. To answer \"why is \
this page missing from my sitemap?\", call explain with the crawl database (state) of the \
site's last crawl; crawl first if there is none. Paths are files and directories within the \
directories this server was given; relative paths are relative to the first of them.";

/// Why the server could not serve.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// An allowed directory cannot be used.
    #[error("--allow-dir {0}")]
    Directory(#[source] io::Error),
    /// The protocol's session could not start or failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Sitemapper {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("sitemapper", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let dirs = self.dirs.clone();
        let offered = tokio::task::spawn_blocking(move || resources::offered(&dirs))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(ListResourcesResult::with_all_items(
            offered
                .into_iter()
                .map(|offer| {
                    Resource::new(offer.uri, offer.name)
                        .with_description(offer.description)
                        .with_mime_type(offer.mime)
                })
                .collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let dirs = self.dirs.clone();
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || resources::read(&dirs, &uri))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        match read {
            Ok((text, mime)) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text, request.uri.as_str()).with_mime_type(mime),
            ])
            .into()),
            Err(why) => Err(ErrorData::resource_not_found(
                why,
                Some(serde_json::json!({ "uri": request.uri })),
            )),
        }
    }
}

/// Serves the Model Context Protocol on stdin and stdout until the client closes stdin or
/// SIGTERM or SIGINT comes. stdout carries the protocol only.
pub async fn serve(settings: McpSettings) -> Result<(), McpError> {
    let dirs = AllowedDirs::new(&settings.allowed_dirs).map_err(McpError::Directory)?;
    let shutdown = CancellationToken::new();
    let server = Sitemapper::new(settings, dirs, shutdown.clone());
    // Non-blocking pipes: a pending read on a blocking thread would hold the runtime up.
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let stdin = EndCancels {
        inner: stdin,
        on_end: shutdown.clone(),
    };
    let service = server
        .serve((stdin, stdout))
        .await
        .map_err(|error| McpError::Session(error.to_string()))?;
    let session = service.cancellation_token();
    let signals = tokio::spawn(async move {
        let Ok(mut terminate) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            return;
        };
        tokio::select! {
            _ = terminate.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        shutdown.cancel();
        session.cancel();
    });
    let ended = service.waiting().await;
    signals.abort();
    ended
        .map(|_| ())
        .map_err(|error| McpError::Session(error.to_string()))
}

/// stdin that cancels a token when it ends: the client has gone, and the tools still running
/// stop now, not after the session's wait for them.
struct EndCancels<R> {
    inner: R,
    on_end: CancellationToken,
}

impl<R: AsyncRead + Unpin> AsyncRead for EndCancels<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buffer.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(context, buffer);
        match &polled {
            Poll::Ready(Ok(())) if buffer.filled().len() == before && buffer.remaining() > 0 => {
                self.on_end.cancel();
            }
            Poll::Ready(Err(_)) => self.on_end.cancel(),
            _ => {}
        }
        polled
    }
}
