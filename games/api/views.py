"""Thin API views: check the input's shape, call the same services and selectors as the web pages,
return what the viewer may see. Service errors become 4xx answers in games/api/errors.py.

Answers are the whitelisted dicts of ``serializers.*_data``, rendered as they are: the output
serializers only describe them in the schema (running thousands of legal moves through nested
serializers cost a quarter of that answer's time), and tests check every answer against that description.
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse as api_reverse
from rest_framework.views import APIView

from games import presence, selectors, services
from games.api import serializers as s
from games.api.parsers import JSONParser
from games.errors import Forbidden

ERRORS = {
    400: OpenApiResponse(s.ValidationErrorSerializer, description="The request is malformed or refused."),
    401: OpenApiResponse(s.ErrorSerializer, description="Authentication is needed."),
    403: OpenApiResponse(
        s.ErrorSerializer,
        description="Not allowed for you (or, signed in with the session, a write without its CSRF token).",
    ),
    404: OpenApiResponse(s.ErrorSerializer, description="There is no such match (or page)."),
    409: OpenApiResponse(s.ErrorSerializer, description="The match changed: reload it and try again."),
    415: OpenApiResponse(s.ErrorSerializer, description="The body is not JSON (`application/json`)."),
    429: OpenApiResponse(
        s.ErrorSerializer, description="Too many in a short time: try again after Retry-After seconds."
    ),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}


class ApiView(APIView):
    """The base of the API's views."""

    # JSON only, and the schema says so: a form body cannot carry a move object or the options, and a
    # client generated from the schema sends each body one way. Any other body is a 415.
    parser_classes = [JSONParser]


MATCH_ID = OpenApiParameter("match_id", int, OpenApiParameter.PATH, description="The match's id.")


class MatchPagination(PageNumberPagination):
    # The query serializer has checked both parameters before the paginator reads them.
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = s.MAX_PAGE_SIZE
    invalid_page_message = "There is no page {page_number} of this list."


def _detail(request: Request, match_id: int, *, code: int = status.HTTP_200_OK) -> Response:
    mv = selectors.match_view_for(match_id=match_id, user=request.user)
    return Response(s.match_detail_data(mv), status=code)


class ApiRoot(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response(
            {
                "games": api_reverse("api-games", request=request),
                "matches": api_reverse("api-matches", request=request),
                "schema": api_reverse("api-schema", request=request),
                "docs": api_reverse("api-docs", request=request),
                "ping": api_reverse("api-ping", request=request),
            }
        )


class Ping(APIView):
    """A health check that touches neither the database nor the session."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(summary="Is the API up?", responses=s.PingSerializer, auth=[])
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class GameList(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The games, with their player counts and options",
        description="Each game's range of seats (`min_players` to `max_players`) and options: what "
        "creating a match of it takes.",
        responses={200: s.GameSerializer(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        return Response(s.games_data())


class MatchList(ApiView):
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = MatchPagination

    @extend_schema(
        summary="Open matches, or your own",
        description="Other query parameters are ignored. A page past the last is a 404.",
        parameters=[s.MatchListQuerySerializer],
        responses={200: s.MatchSummarySerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request) -> Response:
        query = s.MatchListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        if query.validated_data["scope"] == "mine":
            if not request.user.is_authenticated:
                raise NotAuthenticated("Log in, or send a token, to list your matches.")
            matches = selectors.matches_for_user(user=request.user)
        else:
            matches = selectors.matches_open()
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(matches, request, view=self)
        rows = [s.match_summary_data(match) for match in page]
        return paginator.get_paginated_response(rows)

    @extend_schema(
        summary="Open a match; you take the first seat",
        description="The body is checked against the game, which decides what the schema cannot say: "
        "its range of seats and its options (both in /api/games/). Computer opponents (`bot_count` of "
        "`bot_level`) take the seats after yours, at most all but yours; a reserve needs a time per "
        "move, and its cap is at least the starting reserve. Anything else is a 400 with the reason, "
        "and nothing is created. An unknown field is a 400 naming it.",
        request=s.MatchCreateSerializer,
        # 403: at the account's cap of unfinished matches or computer seats; 429: of matches created in
        # the last hour.
        responses={201: s.MatchDetailSerializer, **errors(400, 401, 403, 415, 429)},
    )
    def post(self, request: Request) -> Response:
        form = s.MatchCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        match = services.match_create(creator=request.user, account_limits=True, **form.service_arguments())
        response = _detail(request, match.pk, code=status.HTTP_201_CREATED)
        response["Location"] = reverse("api-match", args=[match.pk])
        return response


class MatchDetail(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A match as your seat sees it (a spectator's view when you are not seated)",
        parameters=[MATCH_ID],
        responses={200: s.MatchDetailSerializer, **errors(401, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        mv = selectors.match_view_for(match_id=match_id, user=request.user)
        # As on the web page: reading the match holds back its e-mails and takes the seat back.
        presence.seat_present(seat=mv.seat, user=request.user)
        return Response(s.match_detail_data(mv))


class MatchJoin(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Take the next free seat; the match starts when the table is full",
        parameters=[MATCH_ID],
        request=None,
        responses={200: s.MatchDetailSerializer, **errors(401, 403, 404, 409)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        services.seat_join(match_id=match_id, user=request.user)
        return _detail(request, match_id)


class MatchLeave(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Give up your seat before the match starts",
        parameters=[MATCH_ID],
        request=None,
        responses={200: s.MatchDetailSerializer, **errors(401, 403, 404, 409)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        services.seat_leave(match_id=match_id, user=request.user)
        return _detail(request, match_id)


class MatchResign(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Resign a match in play",
        parameters=[MATCH_ID],
        request=None,
        responses={200: s.MatchDetailSerializer, **errors(401, 403, 404, 409)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        services.match_resign(match_id=match_id, user=request.user)
        return _detail(request, match_id)


class MatchLegalMoves(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your legal moves, when it is your turn",
        description="The engine's own list, each move with its notation; empty (with `your_turn` false) "
        "when your input is not awaited.",
        parameters=[MATCH_ID],
        responses={200: s.LegalMovesSerializer, **errors(401, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        mv = selectors.match_view_for(match_id=match_id, user=request.user)
        return Response(s.legal_moves_data(mv))


class MatchMoves(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Play a move",
        description="Give the move in the game's notation or as a move object, and the match version "
        "you saw. If the match has moved on since, nothing is played and the answer is 409, unless only "
        "other seats acting beside yours (sealed orders, bids) moved since: your own turn still stands. "
        "The game decides what is legal (the legal-moves operation lists it): any other move is a 400 "
        "with the reason, and nothing is played.",
        parameters=[MATCH_ID],
        request=s.MoveSubmitSerializer,
        responses={201: s.MovePlayedSerializer, **errors(400, 401, 403, 404, 409, 415)},
    )
    def post(self, request: Request, match_id: int) -> Response:
        form = s.MoveSubmitSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        move = services.move_play(match_id=match_id, user=request.user, **form.service_arguments())
        played = {
            "match": move.match.pk,
            "seq": move.seq,
            "notation": move.notation,
            "move": move.move,
            "version": move.match.version,
            "status": move.match.status,
        }
        return Response(played, status=status.HTTP_201_CREATED)


class MatchLog(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The game log, filtered for your seat like the view",
        parameters=[MATCH_ID],
        responses={200: s.MatchLogSerializer, **errors(401, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        mv = selectors.match_view_for(match_id=match_id, user=request.user)
        lines = selectors.match_log_for(match=mv.match, position=mv.viewer_position, seats=mv.seats)
        return Response(s.log_data(mv.match, mv.viewer_position, lines))


def _forecast(request: Request, match_id: int) -> Response:
    mv = selectors.match_view_for(match_id=match_id, user=request.user, state=False)
    if mv.seat is None:
        raise Forbidden("You are not playing in this match.")
    plan = selectors.forecast_for(match=mv.match, seat=mv.seat)
    return Response(s.forecast_data(match=mv.match, seat=mv.seat, lines=plan.lines if plan else []))


class MatchForecast(ApiView):
    """Your conditional moves in a match: only you can read or change them."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your conditional moves",
        description='Lines of "if your opponent plays X, you reply Y", several deep, that are played for '
        "you at once when your opponent's move matches the first move of a line. Empty when you have "
        "none for the position as it is now. Nobody else can read them.",
        parameters=[MATCH_ID],
        responses={200: s.ForecastSerializer, **errors(401, 403, 404)},
    )
    def get(self, request: Request, match_id: int) -> Response:
        return _forecast(request, match_id)

    @extend_schema(
        summary="Set your conditional moves",
        description="Replaces your conditional moves with these lines, checked on the position as it is: "
        "only in two-player matches of games that offer them, while your opponent is to move. Each move "
        "must be legal for the player to move then, alternately your opponent's and yours; a line ends "
        "with your reply, and two lines may not answer the same move differently. Anything else is a 400 "
        "naming the line and the move, and nothing is saved. They are kept, less what was played, until "
        "a move matches none of them; any other change of the position drops them.",
        parameters=[MATCH_ID],
        request=s.ForecastSubmitSerializer,
        responses={200: s.ForecastSerializer, **errors(400, 401, 403, 404, 409, 415)},
    )
    def put(self, request: Request, match_id: int) -> Response:
        form = s.ForecastSubmitSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.forecast_save(
            match_id=match_id,
            user=request.user,
            lines=form.validated_data["lines"],
            expected_version=form.validated_data.get("version"),
        )
        return _forecast(request, match_id)

    @extend_schema(
        summary="Clear your conditional moves",
        parameters=[MATCH_ID],
        request=None,
        responses={204: None, **errors(401, 403, 404)},
    )
    def delete(self, request: Request, match_id: int) -> Response:
        services.forecast_clear(match_id=match_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
