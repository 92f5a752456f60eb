import Courier

/// Placeholder until this product lands.
enum CourierAuthPlaceholder {}
