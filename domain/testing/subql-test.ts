/**
 * `@subql/testing`'s `subqlTest(name, blockHeight, dependentEntities, expectedEntities, handler)`,
 * as a test file registered it and the sandbox handed it over: plain data, each entity with the
 * name its generated class gives it (`_name`).
 */
export interface SubqlTestCase {
  name: string;
  blockHeight: number;
  /** stored before the handler runs */
  dependentEntities: TestEntity[];
  /** compared, field by field, with what the store holds after the handler ran */
  expectedEntities: TestEntity[];
  /** the handler's name, as the manifest's `mapping.handlers[].handler` names it */
  handler: string;
}

/** An entity of a test: its entity name, its id and its fields (the id among them). */
export interface TestEntity {
  entity: string;
  id: string;
  data: Record<string, unknown>;
}
