/**
 * The hosted connect page (spec 4.3; decision 0022): `GET /connect/{token}` shows it (and moves the
 * session to `started`), `POST /connect/{token}` takes the form — connect or decline. Server-rendered
 * HTML (connect-page/render.ts); outside the /v1 API and its OpenAPI document, and outside its JSON
 * error shape: every answer here is a page a person reads.
 * Every answer is `no-store`, `no-referrer` (the link's token is in the URL) and under a Content
 * Security Policy that allows nothing but this page's own inline style and form posts to itself.
 * The form body is `application/x-www-form-urlencoded`, accepted on this path and the operator
 * console's only (ConnectPageForms); everywhere else forms stay 415 (spec 4: JSON only).
 */
import { Controller, Get, Injectable, Param, Post, Req, Res, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { renderComplete, renderDead, renderFailed, renderForm } from '../connect-page/render.js';
import { ConnectSessionService, type EnrollmentForm, type SubmitOutcome } from '../services/connect-session.service.js';

/** The page's headers; `formTargets` are the OAuth authorize origins a form post may redirect to (CSP form-action covers redirects). */
const pageHeaders = (formTargets: readonly string[]) => ({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${formTargets.map((o) => ` ${o}`).join('')}; frame-ancestors 'none'; base-uri 'none'`,
});

/** The pages that take forms: the connect page and the operator console (console/console.controller.ts). */
const FORM_PATHS = ['/connect/', '/console/'] as const;

/** Longest form body the page accepts (its fields are short). */
const FORM_LIMIT_BYTES = 16_384;

/** Registers the form parser, answering a form anywhere but the connect page exactly as Fastify does without one (415). */
@Injectable()
export class ConnectPageForms implements OnModuleInit {
  constructor(private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    if (fastify.hasContentTypeParser('application/x-www-form-urlencoded')) return;
    fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (req, body, done) => {
      if (!FORM_PATHS.some((p) => req.url.startsWith(p))) return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(req.headers['content-type']), undefined);
      done(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
    });
  }
}

const originOf = (req: FastifyRequest) => `${req.protocol}://${req.headers.host ?? 'localhost'}`;

function formOf(body: unknown): EnrollmentForm & { action?: string } {
  const params = body instanceof URLSearchParams ? body : new URLSearchParams();
  const one = (name: string) => params.get(name) ?? undefined;
  return {
    csrf: one('csrf'),
    action: one('action'),
    method: one('method'),
    signals: params.getAll('signals'),
    accept: one('accept'),
    apiToken: one('apiToken'),
    database: one('database'),
    userName: one('userName'),
    password: one('password'),
    server: one('server'),
  };
}

@ApiExcludeController()
@Controller('connect')
export class ConnectPageController {
  constructor(private readonly sessions: ConnectSessionService) {}

  /** The provider's redirect back after OAuth (register this URL with the provider's OAuth application). */
  @Get('oauth/callback')
  async oauthCallback(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const q = req.query as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const outcome = await this.sessions.oauthCallback({ code: str(q.code), state: str(q.state), error: str(q.error) }, originOf(req));
    return this.answer(reply, outcome);
  }

  @Get(':token')
  async show(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const state = await this.sessions.open(token);
    if (state.kind === 'dead') return this.send(reply, state.reason === 'unknown' ? 404 : 410, renderDead(state.reason));
    return this.send(reply, 200, renderForm(state.page));
  }

  @Post(':token')
  async submit(@Param('token') token: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(req.body);
    const outcome = form.action === 'decline' ? await this.sessions.decline(token, form.csrf) : await this.sessions.submit(token, form, originOf(req));
    return this.answer(reply, outcome);
  }

  private answer(reply: FastifyReply, outcome: SubmitOutcome): void {
    switch (outcome.kind) {
      case 'redirect':
        void reply.status(303).headers({ ...pageHeaders(this.sessions.oauthOrigins()), location: outcome.location }).send('');
        return;
      case 'invalid':
        return this.send(reply, 422, renderForm(outcome.page, outcome.problems, outcome.values));
      case 'complete':
        return this.send(reply, 200, renderComplete(outcome.session));
      case 'failed':
        return this.send(reply, 422, renderFailed(outcome.reason));
      case 'forbidden':
        return this.send(reply, 403, renderDead('forbidden'));
      case 'dead':
        return this.send(reply, outcome.reason === 'unknown' ? 404 : outcome.reason === 'cancelled' ? 200 : 410, renderDead(outcome.reason));
    }
  }

  private send(reply: FastifyReply, status: number, html: string): void {
    void reply.status(status).headers(pageHeaders(this.sessions.oauthOrigins())).send(html);
  }
}
