import Courier

#if !YAML
#error("CourierYAML needs the package trait \"YAML\": add it to the traits of your Courier dependency.")
#endif

/// Placeholder until this product lands.
enum CourierYAMLPlaceholder {}
