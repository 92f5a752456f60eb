import CourierProtobuf
import Testing

@Test func placeholderProtobufLinks() {}
