import CourierYAML
import Testing

@Test func placeholderYAMLLinks() {}
