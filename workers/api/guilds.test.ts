import { beforeAll, describe, expect, it } from "vitest";
import { call, seedOrganisation } from "../../test/workerd/seed";

describe("guilds API", () => {
  let token: string;
  beforeAll(async () => ({ token } = await seedOrganisation()));

  it("creates, reads, lists, patches and deletes a guild", async () => {
    const created = await call("POST", "/api/guilds", { token, body: { name: "Research" } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "Research", routines_enabled: true, git_author_email: null });
    const id = created.json.id;
    expect((await call("GET", `/api/guilds/${id}`, { token })).json.name).toBe("Research");
    const list = await call("GET", "/api/guilds", { token });
    expect(list.json.data.map((g: { id: string }) => g.id)).toContain(id);
    const patched = await call("PATCH", `/api/guilds/${id}`, { token, body: { routines_enabled: false } });
    expect(patched.json.routines_enabled).toBe(false);
    expect((await call("DELETE", `/api/guilds/${id}`, { token })).status).toBe(204);
    expect((await call("GET", `/api/guilds/${id}`, { token })).status).toBe(404);
  });
});
