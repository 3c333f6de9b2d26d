/**
 * The operator console at /console (issue 30; decisions 0044, 0045): server-rendered pages for a
 * signed-in operator — connections, one connection's runs (live), dead letters with replay and
 * discard, a fleet map and a vehicle page — outside the /v1 API and its OpenAPI document.
 * Every answer is `no-store`, `no-referrer`, not framable, and under a Content Security Policy that
 * allows scripts, styles, images and fetches from this origin only, so the browser itself refuses
 * any request elsewhere. A page without a session redirects to the sign-in page; a POST without a
 * session or without this session's CSRF token is 403 and changes nothing (the CSRF check runs
 * before any action). Ids in the path are checked before any read (a malformed one is 404).
 */
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { isUuid } from '@switchyard/domain';
import { vehicleIdSchema } from '@switchyard/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleRepository } from '../db/repositories/console.repository.js';
import { consoleAsset } from './assets.js';
import { ConsoleAuth, type ConsoleOperator } from './console-auth.js';
import { ConsoleReads } from './console-reads.js';
import { connectionPage, connectionsPage, runsTable, signInPage } from './render/connections.js';
import { deadLettersPage } from './render/dead-letters.js';
import { mapPage, vehiclePage } from './render/fleet.js';
import { page } from './render/layout.js';

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** Most connections the overview lists; most dead letters the page lists. */
const CONNECTIONS_LIMIT = 500;
/** Connections of the overview whose freshness is read (one telemetry.read.freshness each). */
const FRESHNESS_ROWS = 50;
const DEAD_LETTERS_LIMIT = 200;

const formOf = (body: unknown) => (body instanceof URLSearchParams ? body : new URLSearchParams());
const seqOf = (raw: string) => (/^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : undefined);

@ApiExcludeController()
@Controller('console')
export class ConsoleController {
  constructor(
    private readonly auth: ConsoleAuth,
    private readonly reads: ConsoleReads,
    private readonly repo: ConsoleRepository,
  ) {}

  private send(reply: FastifyReply, status: number, html: string): void {
    void reply.status(status).headers(PAGE_HEADERS).send(html);
  }

  private redirect(reply: FastifyReply, to: string): void {
    void reply.status(303).headers({ ...PAGE_HEADERS, location: to }).send('');
  }

  /** The signed-in operator, or a redirect to the sign-in page (and undefined). */
  private async signedIn(req: FastifyRequest, reply: FastifyReply): Promise<ConsoleOperator | undefined> {
    const operator = await this.auth.operator(req);
    if (!operator) this.redirect(reply, '/console/sign-in');
    return operator;
  }

  /** The operator of a POST whose CSRF token is this session's; otherwise a 403 page (and undefined). */
  private async authorizedPost(req: FastifyRequest, reply: FastifyReply): Promise<ConsoleOperator | undefined> {
    const operator = await this.auth.operator(req);
    // Mutation tried (system-tests/test/console.int-spec.ts "csrf"): accepting a missing token → the token-less replay succeeds, fails.
    if (!operator || !this.auth.csrfValid(operator, formOf(req.body).get('csrf') ?? undefined)) {
      this.send(reply, 403, page({ title: 'Refused', nav: 'none', operator, body: '<h1>Refused</h1><p role="alert">This form was not sent from a page of your console session (<code>csrf_invalid</code>); nothing was changed.</p><p><a href="/console/connections">Back to the console</a></p>' }));
      return undefined;
    }
    return operator;
  }

  private notFound(reply: FastifyReply, operator: ConsoleOperator): void {
    this.send(reply, 404, page({ title: 'Not found', nav: 'none', operator, body: '<h1>Not found</h1><p><a href="/console/connections">Back to the connections</a></p>' }));
  }

  @Get()
  async home(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.redirect(reply, (await this.auth.operator(req)) ? '/console/connections' : '/console/sign-in');
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Res() reply: FastifyReply): void {
    const asset = consoleAsset(name);
    if (!asset) return void reply.status(404).headers({ 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).send('not found');
    void reply.status(200).headers({ 'content-type': asset.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' }).send(asset.body);
  }

  @Get('sign-in')
  async signInForm(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (await this.auth.operator(req)) return this.redirect(reply, '/console/connections');
    this.send(reply, 200, signInPage(this.auth.issueSignInToken(reply)));
  }

  @Post('sign-in')
  async signIn(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(req.body);
    const outcome = await this.auth.signIn(req, reply, { credential: form.get('credential') ?? undefined, csrf: form.get('csrf') ?? undefined });
    if (outcome === 'ok') return this.redirect(reply, '/console/connections');
    this.send(reply, outcome === 'csrf_invalid' ? 403 : 401, signInPage(this.auth.issueSignInToken(reply), outcome));
  }

  @Post('sign-out')
  async signOut(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.authorizedPost(req, reply);
    if (!operator) return;
    await this.auth.signOut(operator, reply);
    this.redirect(reply, '/console/sign-in');
  }

  @Get('connections')
  async connections(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.signedIn(req, reply);
    if (!operator) return;
    const rows = await this.repo.connections(CONNECTIONS_LIMIT);
    // One freshness read per connection, for the first FRESHNESS_ROWS (their pages have the rest).
    const measured = rows.slice(0, FRESHNESS_ROWS).filter((c) => c.config.selectedSignals.length > 0);
    const freshness = new Map(await Promise.all(measured.map(async (c) => [c.id, await this.reads.freshness(c.id)] as const)));
    this.send(reply, 200, connectionsPage(operator, rows, freshness));
  }

  @Get('connections/:id')
  async connection(@Param('id') id: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.signedIn(req, reply);
    if (!operator) return;
    const row = isUuid(id) ? await this.repo.connection(id) : undefined;
    if (!row) return this.notFound(reply, operator);
    const [runs, freshness] = await Promise.all([this.reads.runs(id), this.reads.freshness(id)]);
    this.send(reply, 200, connectionPage(operator, row, runs, freshness));
  }

  /** The runs table alone, for console.js's live refresh. */
  @Get('connections/:id/runs.html')
  async runsFragment(@Param('id') id: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.auth.operator(req);
    if (!operator) return this.send(reply, 401, '');
    if (!isUuid(id)) return this.send(reply, 404, '');
    this.send(reply, 200, runsTable(await this.reads.runs(id)));
  }

  @Get('connections/:id/map')
  async map(@Param('id') id: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.signedIn(req, reply);
    if (!operator) return;
    const row = isUuid(id) ? await this.repo.connection(id) : undefined;
    if (!row) return this.notFound(reply, operator);
    const [locations, names] = await Promise.all([this.reads.locations(id), this.reads.vehicleNames(id)]);
    this.send(reply, 200, mapPage(operator, row, locations, names.ok ? names.value : new Map()));
  }

  @Get('connections/:id/vehicles/:vehicleId')
  async vehicle(@Param('id') id: string, @Param('vehicleId') vehicleId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.signedIn(req, reply);
    if (!operator) return;
    const row = isUuid(id) && vehicleIdSchema.safeParse(vehicleId).success ? await this.repo.connection(id) : undefined;
    if (!row) return this.notFound(reply, operator);
    const [telemetry, utilization, names] = await Promise.all([this.reads.telemetry(id, vehicleId), this.reads.utilization(id, vehicleId), this.reads.vehicleNames(id)]);
    if (!telemetry.ok && telemetry.problem === 'not_found') return this.notFound(reply, operator);
    this.send(reply, 200, vehiclePage(operator, row, vehicleId, names.ok ? names.value.get(vehicleId) : undefined, telemetry, utilization));
  }

  @Get('dead-letters')
  async deadLetters(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.signedIn(req, reply);
    if (!operator) return;
    const q = req.query as Record<string, unknown>;
    const flash = typeof q.done === 'string' && /^(replayed|discarded|not_found)-[0-9]{1,16}$/.test(q.done) ? q.done : undefined;
    const [outcome, seq] = flash ? flash.split('-') : [];
    const message = outcome === 'replayed' ? `Dead letter ${seq} replayed.` : outcome === 'discarded' ? `Dead letter ${seq} discarded.` : outcome ? `Dead letter ${seq} was already gone.` : undefined;
    this.send(reply, 200, deadLettersPage(operator, await this.reads.deadLetters(DEAD_LETTERS_LIMIT), DEAD_LETTERS_LIMIT, message));
  }

  @Post('dead-letters/:seq/:action')
  async deadLetterAction(@Param('seq') raw: string, @Param('action') action: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const operator = await this.authorizedPost(req, reply);
    if (!operator) return;
    const seq = seqOf(raw);
    if (seq === undefined || (action !== 'replay' && action !== 'discard')) return this.notFound(reply, operator);
    const asked = { id: operator.operatorId, name: operator.operatorName };
    const done = action === 'replay' ? await this.reads.replay(seq, asked) : await this.reads.discard(seq, asked);
    if (!done.ok) return this.send(reply, 503, deadLettersPage(operator, { ok: false, problem: done.problem, detail: done.detail }, DEAD_LETTERS_LIMIT));
    this.redirect(reply, `/console/dead-letters?done=${done.value.outcome}-${seq}`);
  }
}
