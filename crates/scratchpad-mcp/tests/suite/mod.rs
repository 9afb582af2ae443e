mod errors;
mod guidance;
mod http;
mod resources;
mod sessions;
mod tools;
