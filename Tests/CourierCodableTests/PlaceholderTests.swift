import CourierCodable
import Testing

@Test func placeholderCodableLinks() {}
