mod api;
mod gate;
pub mod live;
mod pages;
mod postgres;
