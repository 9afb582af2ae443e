mod continuations;
mod errors;
mod guidance;
mod http;
mod proxy;
mod resources;
mod sessions;
mod tools;
