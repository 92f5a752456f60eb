import Courier

#if !Combine
#error("CourierCombine needs the package trait \"Combine\": add it to the traits of your Courier dependency.")
#endif

/// Placeholder until this product lands.
enum CourierCombinePlaceholder {}
