import { describe, expect, it } from "vitest";
import { SecretCreate, SecretPatch } from "./secrets.schema";

describe("secret bodies", () => {
  it("OP-SEC-3: the create and patch bodies refuse a reserved name on the name field", () => {
    const created = SecretCreate.safeParse({ name: "GUEST_HOME", value: "/tmp/elsewhere" });
    expect(created.success).toBe(false);
    expect(created.error?.issues).toEqual([expect.objectContaining({ path: ["name"], message: expect.stringMatching(/^is reserved/) })]);
    expect(SecretPatch.safeParse({ name: "NODE_OPTIONS" }).success).toBe(false);
    expect(SecretCreate.safeParse({ name: "SHOP_API_KEY", value: "k" }).success).toBe(true);
  });
});
