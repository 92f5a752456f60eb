import Courier

#if !Logging
#error("CourierLogging needs the package trait \"Logging\": add it to the traits of your Courier dependency.")
#endif

/// Placeholder until this product lands.
enum CourierLoggingPlaceholder {}
