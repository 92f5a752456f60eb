import Courier

#if !Protobuf
#error("CourierProtobuf needs the package trait \"Protobuf\": add it to the traits of your Courier dependency.")
#endif

/// Placeholder until this product lands.
enum CourierProtobufPlaceholder {}
