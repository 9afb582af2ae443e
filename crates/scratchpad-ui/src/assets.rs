//! The stylesheet, the script and the icon, compiled into the binary: the view needs no network.

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::get;
use http::header;

pub(crate) const SCRIPT: &str = include_str!("../assets/app.js");
pub(crate) const STYLE: &str = include_str!("../assets/app.css");
pub(crate) const ICON: &str = include_str!("../assets/icon.svg");

/// A version of the assets for their addresses, so a browser never keeps a stale copy across
/// releases (and may keep them for a day within one).
pub(crate) fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hasher = blake3::Hasher::new();
        for asset in [SCRIPT, STYLE, ICON] {
            hasher.update(asset.as_bytes());
        }
        hasher.finalize().to_hex()[..12].to_owned()
    })
}

pub(crate) fn router() -> Router {
    Router::new()
        .route(
            "/assets/app.js",
            get(|| serve("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route(
            "/assets/app.css",
            get(|| serve("text/css; charset=utf-8", STYLE)),
        )
        .route("/assets/icon.svg", get(|| serve("image/svg+xml", ICON)))
}

async fn serve(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "private, max-age=86400"),
        ],
        body,
    )
}
