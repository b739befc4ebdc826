// Generated from docs/api/dispatcher-openapi.json by `npm run openapi` (scripts/docs/openapi-clients.ts): do not edit.
// test/openapi.unit.spec.ts fails when this file is not what the document gives.

/** The document's paths, as committed: the answers' JSON Schemas (OpenAPI 3.0 dialect, `nullable`). */
export const paths: Readonly<Record<string, unknown>> = {
  "/v1/admin/endpoints": {
    "post": {
      "description": "Its URL (HTTPS; in production no private network), the event kinds it receives (every kind when left out) and a description. A signing secret is generated and kept in the dispatcher's vault; the answer shows it this once.",
      "operationId": "EndpointsController_create",
      "parameters": [],
      "requestBody": {
        "required": true,
        "content": {
          "application/json": {
            "schema": {
              "type": "object",
              "properties": {
                "url": {
                  "type": "string",
                  "maxLength": 2048
                },
                "event_kinds": {
                  "minItems": 1,
                  "type": "array",
                  "items": {
                    "type": "string",
                    "enum": [
                      "subscription_started",
                      "subscription_renewed",
                      "subscription_revoked",
                      "subscription_reinstated"
                    ]
                  }
                },
                "description": {
                  "nullable": true,
                  "type": "string",
                  "maxLength": 500
                }
              },
              "required": [
                "url"
              ],
              "additionalProperties": false
            }
          }
        }
      },
      "responses": {
        "201": {
          "description": "Registered, with its signing secret",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "url": {
                    "type": "string",
                    "description": "Where signed entitlement events are POSTed"
                  },
                  "description": {
                    "nullable": true,
                    "type": "string"
                  },
                  "event_kinds": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "enum": [
                        "subscription_started",
                        "subscription_renewed",
                        "subscription_revoked",
                        "subscription_reinstated"
                      ]
                    },
                    "description": "The entitlement event kinds it receives"
                  },
                  "enabled": {
                    "type": "boolean"
                  },
                  "disabled_reason": {
                    "nullable": true,
                    "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                    "type": "string"
                  },
                  "disabled_at": {
                    "nullable": true,
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "failing_since": {
                    "nullable": true,
                    "description": "First failure of the current run of failed attempts; `null` after a success",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "previous_secret_expires_at": {
                    "nullable": true,
                    "description": "Until when the secret before the last rotation still signs too",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "updated_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "secret": {
                    "type": "string",
                    "description": "`whsec_...`: the Standard Webhooks signing secret, shown this once (kept only in the dispatcher's vault)"
                  }
                },
                "required": [
                  "id",
                  "url",
                  "description",
                  "event_kinds",
                  "enabled",
                  "disabled_reason",
                  "disabled_at",
                  "failing_since",
                  "previous_secret_expires_at",
                  "created_at",
                  "updated_at",
                  "secret"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "400": {
          "description": "`REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`, `ENDPOINT.URL_NOT_ALLOWED`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "413": {
          "description": "`REQUEST.BODY_TOO_LARGE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "415": {
          "description": "`REQUEST.UNSUPPORTED_MEDIA_TYPE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Register an endpoint",
      "tags": [
        "endpoints"
      ]
    },
    "get": {
      "description": "Never their secrets.",
      "operationId": "EndpointsController_list",
      "parameters": [],
      "responses": {
        "200": {
          "description": "The endpoints",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "endpoints": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "properties": {
                        "id": {
                          "type": "string",
                          "format": "uuid",
                          "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                        },
                        "url": {
                          "type": "string",
                          "description": "Where signed entitlement events are POSTed"
                        },
                        "description": {
                          "nullable": true,
                          "type": "string"
                        },
                        "event_kinds": {
                          "type": "array",
                          "items": {
                            "type": "string",
                            "enum": [
                              "subscription_started",
                              "subscription_renewed",
                              "subscription_revoked",
                              "subscription_reinstated"
                            ]
                          },
                          "description": "The entitlement event kinds it receives"
                        },
                        "enabled": {
                          "type": "boolean"
                        },
                        "disabled_reason": {
                          "nullable": true,
                          "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                          "type": "string"
                        },
                        "disabled_at": {
                          "nullable": true,
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        },
                        "failing_since": {
                          "nullable": true,
                          "description": "First failure of the current run of failed attempts; `null` after a success",
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                        },
                        "previous_secret_expires_at": {
                          "nullable": true,
                          "description": "Until when the secret before the last rotation still signs too",
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                        },
                        "created_at": {
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        },
                        "updated_at": {
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        }
                      },
                      "required": [
                        "id",
                        "url",
                        "description",
                        "event_kinds",
                        "enabled",
                        "disabled_reason",
                        "disabled_at",
                        "failing_since",
                        "previous_secret_expires_at",
                        "created_at",
                        "updated_at"
                      ],
                      "additionalProperties": false
                    }
                  }
                },
                "required": [
                  "endpoints"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Every endpoint",
      "tags": [
        "endpoints"
      ]
    }
  },
  "/v1/admin/endpoints/{id}": {
    "get": {
      "operationId": "EndpointsController_get",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "responses": {
        "200": {
          "description": "The endpoint",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "url": {
                    "type": "string",
                    "description": "Where signed entitlement events are POSTed"
                  },
                  "description": {
                    "nullable": true,
                    "type": "string"
                  },
                  "event_kinds": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "enum": [
                        "subscription_started",
                        "subscription_renewed",
                        "subscription_revoked",
                        "subscription_reinstated"
                      ]
                    },
                    "description": "The entitlement event kinds it receives"
                  },
                  "enabled": {
                    "type": "boolean"
                  },
                  "disabled_reason": {
                    "nullable": true,
                    "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                    "type": "string"
                  },
                  "disabled_at": {
                    "nullable": true,
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "failing_since": {
                    "nullable": true,
                    "description": "First failure of the current run of failed attempts; `null` after a success",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "previous_secret_expires_at": {
                    "nullable": true,
                    "description": "Until when the secret before the last rotation still signs too",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "updated_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  }
                },
                "required": [
                  "id",
                  "url",
                  "description",
                  "event_kinds",
                  "enabled",
                  "disabled_reason",
                  "disabled_at",
                  "failing_since",
                  "previous_secret_expires_at",
                  "created_at",
                  "updated_at"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "One endpoint",
      "tags": [
        "endpoints"
      ]
    },
    "patch": {
      "description": "Any of its URL, event kinds and description.",
      "operationId": "EndpointsController_update",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "requestBody": {
        "required": true,
        "content": {
          "application/json": {
            "schema": {
              "type": "object",
              "properties": {
                "url": {
                  "type": "string",
                  "maxLength": 2048
                },
                "event_kinds": {
                  "minItems": 1,
                  "type": "array",
                  "items": {
                    "type": "string",
                    "enum": [
                      "subscription_started",
                      "subscription_renewed",
                      "subscription_revoked",
                      "subscription_reinstated"
                    ]
                  }
                },
                "description": {
                  "nullable": true,
                  "type": "string",
                  "maxLength": 500
                }
              },
              "additionalProperties": false
            }
          }
        }
      },
      "responses": {
        "200": {
          "description": "The endpoint as it is now",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "url": {
                    "type": "string",
                    "description": "Where signed entitlement events are POSTed"
                  },
                  "description": {
                    "nullable": true,
                    "type": "string"
                  },
                  "event_kinds": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "enum": [
                        "subscription_started",
                        "subscription_renewed",
                        "subscription_revoked",
                        "subscription_reinstated"
                      ]
                    },
                    "description": "The entitlement event kinds it receives"
                  },
                  "enabled": {
                    "type": "boolean"
                  },
                  "disabled_reason": {
                    "nullable": true,
                    "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                    "type": "string"
                  },
                  "disabled_at": {
                    "nullable": true,
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "failing_since": {
                    "nullable": true,
                    "description": "First failure of the current run of failed attempts; `null` after a success",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "previous_secret_expires_at": {
                    "nullable": true,
                    "description": "Until when the secret before the last rotation still signs too",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "updated_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  }
                },
                "required": [
                  "id",
                  "url",
                  "description",
                  "event_kinds",
                  "enabled",
                  "disabled_reason",
                  "disabled_at",
                  "failing_since",
                  "previous_secret_expires_at",
                  "created_at",
                  "updated_at"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "400": {
          "description": "`REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`, `ENDPOINT.URL_NOT_ALLOWED`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "413": {
          "description": "`REQUEST.BODY_TOO_LARGE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "415": {
          "description": "`REQUEST.UNSUPPORTED_MEDIA_TYPE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Change an endpoint",
      "tags": [
        "endpoints"
      ]
    },
    "delete": {
      "description": "Nothing more is delivered to it; its delivery history stays.",
      "operationId": "EndpointsController_remove",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "responses": {
        "204": {
          "description": "Deleted"
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Delete an endpoint",
      "tags": [
        "endpoints"
      ]
    }
  },
  "/v1/admin/endpoints/{id}/enable": {
    "post": {
      "description": "The events it missed while disabled get a delivery, and its waiting deliveries are due at once (docs/delivery.md, \"Disabled endpoints\").",
      "operationId": "EndpointsController_enable",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "responses": {
        "200": {
          "description": "The endpoint as it is now",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "url": {
                    "type": "string",
                    "description": "Where signed entitlement events are POSTed"
                  },
                  "description": {
                    "nullable": true,
                    "type": "string"
                  },
                  "event_kinds": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "enum": [
                        "subscription_started",
                        "subscription_renewed",
                        "subscription_revoked",
                        "subscription_reinstated"
                      ]
                    },
                    "description": "The entitlement event kinds it receives"
                  },
                  "enabled": {
                    "type": "boolean"
                  },
                  "disabled_reason": {
                    "nullable": true,
                    "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                    "type": "string"
                  },
                  "disabled_at": {
                    "nullable": true,
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "failing_since": {
                    "nullable": true,
                    "description": "First failure of the current run of failed attempts; `null` after a success",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "previous_secret_expires_at": {
                    "nullable": true,
                    "description": "Until when the secret before the last rotation still signs too",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "updated_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  }
                },
                "required": [
                  "id",
                  "url",
                  "description",
                  "event_kinds",
                  "enabled",
                  "disabled_reason",
                  "disabled_at",
                  "failing_since",
                  "previous_secret_expires_at",
                  "created_at",
                  "updated_at"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Enable an endpoint",
      "tags": [
        "endpoints"
      ]
    }
  },
  "/v1/admin/endpoints/{id}/disable": {
    "post": {
      "description": "Nothing is attempted or recorded for it until it is enabled again, which records the deliveries it missed (`disabled_reason: admin`).",
      "operationId": "EndpointsController_disable",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "responses": {
        "200": {
          "description": "The endpoint as it is now",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "url": {
                    "type": "string",
                    "description": "Where signed entitlement events are POSTed"
                  },
                  "description": {
                    "nullable": true,
                    "type": "string"
                  },
                  "event_kinds": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "enum": [
                        "subscription_started",
                        "subscription_renewed",
                        "subscription_revoked",
                        "subscription_reinstated"
                      ]
                    },
                    "description": "The entitlement event kinds it receives"
                  },
                  "enabled": {
                    "type": "boolean"
                  },
                  "disabled_reason": {
                    "nullable": true,
                    "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                    "type": "string"
                  },
                  "disabled_at": {
                    "nullable": true,
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "failing_since": {
                    "nullable": true,
                    "description": "First failure of the current run of failed attempts; `null` after a success",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "previous_secret_expires_at": {
                    "nullable": true,
                    "description": "Until when the secret before the last rotation still signs too",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "updated_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  }
                },
                "required": [
                  "id",
                  "url",
                  "description",
                  "event_kinds",
                  "enabled",
                  "disabled_reason",
                  "disabled_at",
                  "failing_since",
                  "previous_secret_expires_at",
                  "created_at",
                  "updated_at"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Disable an endpoint",
      "tags": [
        "endpoints"
      ]
    }
  },
  "/v1/admin/endpoints/{id}/rotate-secret": {
    "post": {
      "description": "A new secret, shown this once; the previous one keeps signing too (both signatures are sent) for `previous_secret_valid_for_ms` milliseconds (default `DISPATCHER_SECRET_ROTATION_OVERLAP_MS`, 24 h; at most 7 days). The body may be left out.",
      "operationId": "EndpointsController_rotate",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "requestBody": {
        "required": true,
        "content": {
          "application/json": {
            "schema": {
              "nullable": true,
              "type": "object",
              "properties": {
                "previous_secret_valid_for_ms": {
                  "type": "integer",
                  "minimum": 0,
                  "maximum": 604800000
                }
              },
              "additionalProperties": false
            }
          }
        }
      },
      "responses": {
        "200": {
          "description": "The endpoint with its new signing secret",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "url": {
                    "type": "string",
                    "description": "Where signed entitlement events are POSTed"
                  },
                  "description": {
                    "nullable": true,
                    "type": "string"
                  },
                  "event_kinds": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "enum": [
                        "subscription_started",
                        "subscription_renewed",
                        "subscription_revoked",
                        "subscription_reinstated"
                      ]
                    },
                    "description": "The entitlement event kinds it receives"
                  },
                  "enabled": {
                    "type": "boolean"
                  },
                  "disabled_reason": {
                    "nullable": true,
                    "description": "`admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled",
                    "type": "string"
                  },
                  "disabled_at": {
                    "nullable": true,
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "failing_since": {
                    "nullable": true,
                    "description": "First failure of the current run of failed attempts; `null` after a success",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "previous_secret_expires_at": {
                    "nullable": true,
                    "description": "Until when the secret before the last rotation still signs too",
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "updated_at": {
                    "type": "string",
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                    "description": "ISO 8601, UTC"
                  },
                  "secret": {
                    "type": "string",
                    "description": "`whsec_...`: the Standard Webhooks signing secret, shown this once (kept only in the dispatcher's vault)"
                  }
                },
                "required": [
                  "id",
                  "url",
                  "description",
                  "event_kinds",
                  "enabled",
                  "disabled_reason",
                  "disabled_at",
                  "failing_since",
                  "previous_secret_expires_at",
                  "created_at",
                  "updated_at",
                  "secret"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "400": {
          "description": "`REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "413": {
          "description": "`REQUEST.BODY_TOO_LARGE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "415": {
          "description": "`REQUEST.UNSUPPORTED_MEDIA_TYPE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Rotate an endpoint's signing secret",
      "tags": [
        "endpoints"
      ]
    }
  },
  "/v1/admin/endpoints/{id}/recover": {
    "post": {
      "description": "Every delivery to it that failed (was dead-lettered) since then, again, and the events received since then that it never had.",
      "operationId": "EndpointsController_recover",
      "parameters": [
        {
          "name": "id",
          "required": true,
          "in": "path",
          "description": "The endpoint's id (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "requestBody": {
        "required": true,
        "content": {
          "application/json": {
            "schema": {
              "type": "object",
              "properties": {
                "since": {
                  "type": "string",
                  "format": "date-time",
                  "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$"
                }
              },
              "required": [
                "since"
              ],
              "additionalProperties": false
            }
          }
        }
      },
      "responses": {
        "200": {
          "description": "Scheduled",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "requeued": {
                    "type": "integer",
                    "minimum": -9007199254740991,
                    "maximum": 9007199254740991,
                    "description": "Deliveries put back in the schedule"
                  }
                },
                "required": [
                  "requeued"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "400": {
          "description": "`REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "413": {
          "description": "`REQUEST.BODY_TOO_LARGE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "415": {
          "description": "`REQUEST.UNSUPPORTED_MEDIA_TYPE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Recover an endpoint's deliveries since a time",
      "tags": [
        "endpoints"
      ]
    }
  },
  "/v1/admin/events/{eventId}/deliveries": {
    "get": {
      "description": "Every delivery of the event, one per endpoint, with every attempt.",
      "operationId": "DeliveriesController_attempts",
      "parameters": [
        {
          "name": "eventId",
          "required": true,
          "in": "path",
          "description": "The entitlement event's id (UUID, its `event_id`)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "responses": {
        "200": {
          "description": "The deliveries",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "event_id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "deliveries": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "properties": {
                        "delivery_id": {
                          "type": "integer",
                          "minimum": -9007199254740991,
                          "maximum": 9007199254740991
                        },
                        "event_id": {
                          "type": "string",
                          "format": "uuid",
                          "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$",
                          "description": "The entitlement event's id: the receiver's idempotency key"
                        },
                        "event": {
                          "type": "string",
                          "enum": [
                            "subscription_started",
                            "subscription_renewed",
                            "subscription_revoked",
                            "subscription_reinstated"
                          ]
                        },
                        "user_id": {
                          "type": "string"
                        },
                        "endpoint_id": {
                          "type": "string",
                          "format": "uuid",
                          "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                        },
                        "state": {
                          "type": "string",
                          "enum": [
                            "pending",
                            "delivered",
                            "failed",
                            "cancelled"
                          ],
                          "description": "`failed`: dead-lettered after every retry"
                        },
                        "attempts": {
                          "type": "integer",
                          "minimum": -9007199254740991,
                          "maximum": 9007199254740991,
                          "description": "Delivery attempts so far"
                        },
                        "next_attempt_at": {
                          "nullable": true,
                          "description": "While `pending`: when the next attempt is due",
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                        },
                        "delivered_at": {
                          "nullable": true,
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        },
                        "last_status": {
                          "nullable": true,
                          "description": "The endpoint's last HTTP status; `null` for none (a time-out, a refused connection)",
                          "type": "integer",
                          "minimum": -9007199254740991,
                          "maximum": 9007199254740991
                        },
                        "last_error": {
                          "nullable": true,
                          "type": "string"
                        },
                        "recorded_at": {
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        },
                        "attempt_log": {
                          "type": "array",
                          "items": {
                            "type": "object",
                            "properties": {
                              "attempt": {
                                "type": "integer",
                                "minimum": -9007199254740991,
                                "maximum": 9007199254740991
                              },
                              "started_at": {
                                "type": "string",
                                "format": "date-time",
                                "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                                "description": "ISO 8601, UTC"
                              },
                              "latency_ms": {
                                "type": "integer",
                                "minimum": -9007199254740991,
                                "maximum": 9007199254740991,
                                "description": "Milliseconds"
                              },
                              "status": {
                                "nullable": true,
                                "description": "The endpoint's HTTP status; `null` for none",
                                "type": "integer",
                                "minimum": -9007199254740991,
                                "maximum": 9007199254740991
                              },
                              "outcome": {
                                "type": "string",
                                "description": "`delivered`, `failed`, `gone` or `throttled`"
                              },
                              "error": {
                                "nullable": true,
                                "type": "string"
                              },
                              "response_excerpt": {
                                "nullable": true,
                                "description": "The start of the endpoint's answer",
                                "type": "string"
                              },
                              "next_attempt_at": {
                                "nullable": true,
                                "type": "string",
                                "format": "date-time",
                                "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                                "description": "ISO 8601, UTC"
                              }
                            },
                            "required": [
                              "attempt",
                              "started_at",
                              "latency_ms",
                              "status",
                              "outcome",
                              "error",
                              "response_excerpt",
                              "next_attempt_at"
                            ],
                            "additionalProperties": false
                          }
                        }
                      },
                      "required": [
                        "delivery_id",
                        "event_id",
                        "event",
                        "user_id",
                        "endpoint_id",
                        "state",
                        "attempts",
                        "next_attempt_at",
                        "delivered_at",
                        "last_status",
                        "last_error",
                        "recorded_at",
                        "attempt_log"
                      ],
                      "additionalProperties": false
                    }
                  }
                },
                "required": [
                  "event_id",
                  "deliveries"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`EVENT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "An entitlement event's deliveries",
      "tags": [
        "deliveries"
      ]
    }
  },
  "/v1/admin/events/{eventId}/resend": {
    "post": {
      "description": "To one endpoint (a delivery is recorded if it had none), or, without a body, to every endpoint that had it. A new round of the retry schedule starts at once.",
      "operationId": "DeliveriesController_resend",
      "parameters": [
        {
          "name": "eventId",
          "required": true,
          "in": "path",
          "description": "The entitlement event's id (UUID, its `event_id`)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "requestBody": {
        "required": true,
        "content": {
          "application/json": {
            "schema": {
              "nullable": true,
              "type": "object",
              "properties": {
                "endpoint_id": {
                  "type": "string",
                  "format": "uuid",
                  "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                }
              },
              "additionalProperties": false
            }
          }
        }
      },
      "responses": {
        "200": {
          "description": "Scheduled",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "requeued": {
                    "type": "integer",
                    "minimum": -9007199254740991,
                    "maximum": 9007199254740991,
                    "description": "Deliveries put back in the schedule"
                  }
                },
                "required": [
                  "requeued"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "400": {
          "description": "`REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`EVENT.NOT_FOUND`, `ENDPOINT.NOT_FOUND`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "413": {
          "description": "`REQUEST.BODY_TOO_LARGE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "415": {
          "description": "`REQUEST.UNSUPPORTED_MEDIA_TYPE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Resend an entitlement event",
      "tags": [
        "deliveries"
      ]
    }
  },
  "/v1/admin/deliveries": {
    "get": {
      "description": "Newest first, in keyset pages (pass `next_before` as `before`); `state=failed` lists the dead-lettered ones.",
      "operationId": "DeliveriesController_list",
      "parameters": [
        {
          "name": "state",
          "required": false,
          "in": "query",
          "schema": {
            "type": "string",
            "enum": [
              "pending",
              "delivered",
              "failed",
              "cancelled"
            ]
          }
        },
        {
          "name": "endpoint_id",
          "required": false,
          "in": "query",
          "schema": {
            "type": "string",
            "format": "uuid",
            "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
          }
        },
        {
          "name": "before",
          "required": false,
          "in": "query",
          "schema": {
            "type": "integer",
            "minimum": 0,
            "exclusiveMinimum": true,
            "maximum": 9007199254740991
          }
        },
        {
          "name": "limit",
          "required": false,
          "in": "query",
          "schema": {
            "default": 100,
            "type": "integer",
            "minimum": 1,
            "maximum": 500
          }
        }
      ],
      "responses": {
        "200": {
          "description": "One page",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "deliveries": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "properties": {
                        "delivery_id": {
                          "type": "integer",
                          "minimum": -9007199254740991,
                          "maximum": 9007199254740991
                        },
                        "event_id": {
                          "type": "string",
                          "format": "uuid",
                          "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$",
                          "description": "The entitlement event's id: the receiver's idempotency key"
                        },
                        "event": {
                          "type": "string",
                          "enum": [
                            "subscription_started",
                            "subscription_renewed",
                            "subscription_revoked",
                            "subscription_reinstated"
                          ]
                        },
                        "user_id": {
                          "type": "string"
                        },
                        "endpoint_id": {
                          "type": "string",
                          "format": "uuid",
                          "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                        },
                        "state": {
                          "type": "string",
                          "enum": [
                            "pending",
                            "delivered",
                            "failed",
                            "cancelled"
                          ],
                          "description": "`failed`: dead-lettered after every retry"
                        },
                        "attempts": {
                          "type": "integer",
                          "minimum": -9007199254740991,
                          "maximum": 9007199254740991,
                          "description": "Delivery attempts so far"
                        },
                        "next_attempt_at": {
                          "nullable": true,
                          "description": "While `pending`: when the next attempt is due",
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
                        },
                        "delivered_at": {
                          "nullable": true,
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        },
                        "last_status": {
                          "nullable": true,
                          "description": "The endpoint's last HTTP status; `null` for none (a time-out, a refused connection)",
                          "type": "integer",
                          "minimum": -9007199254740991,
                          "maximum": 9007199254740991
                        },
                        "last_error": {
                          "nullable": true,
                          "type": "string"
                        },
                        "recorded_at": {
                          "type": "string",
                          "format": "date-time",
                          "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$",
                          "description": "ISO 8601, UTC"
                        }
                      },
                      "required": [
                        "delivery_id",
                        "event_id",
                        "event",
                        "user_id",
                        "endpoint_id",
                        "state",
                        "attempts",
                        "next_attempt_at",
                        "delivered_at",
                        "last_status",
                        "last_error",
                        "recorded_at"
                      ],
                      "additionalProperties": false
                    }
                  },
                  "next_before": {
                    "nullable": true,
                    "description": "Pass as `before` for the next page; `null` on the last",
                    "type": "integer",
                    "minimum": -9007199254740991,
                    "maximum": 9007199254740991
                  }
                },
                "required": [
                  "deliveries",
                  "next_before"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "400": {
          "description": "`REQUEST.VALIDATION_FAILED`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "adminApiKey": []
        }
      ],
      "summary": "Deliveries",
      "tags": [
        "deliveries"
      ]
    }
  },
  "/v1/receipts/{eventId}/proof": {
    "get": {
      "description": "The latest signed checkpoint of the ledger and the event's inclusion proof in it: with the receipt delivered in the event's body (`receipt`) and Settle's published public key, it proves offline that this event is in the ledger Settle signed.",
      "operationId": "ReceiptsController_proof",
      "parameters": [
        {
          "name": "eventId",
          "required": true,
          "in": "path",
          "description": "The delivered event's `event_id` (UUID)",
          "schema": {
            "type": "string"
          }
        }
      ],
      "responses": {
        "200": {
          "description": "The proof",
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "event_id": {
                    "type": "string",
                    "format": "uuid",
                    "pattern": "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
                  },
                  "receipt": {
                    "type": "object",
                    "properties": {
                      "ledger_position": {
                        "type": "integer",
                        "minimum": -9007199254740991,
                        "maximum": 9007199254740991,
                        "description": "The event's global position in the ledger"
                      },
                      "ledger_hash": {
                        "type": "string",
                        "description": "Its stream hash, 64 hex digits"
                      }
                    },
                    "required": [
                      "ledger_position",
                      "ledger_hash"
                    ],
                    "additionalProperties": false
                  },
                  "checkpoint": {
                    "type": "string",
                    "description": "The signed checkpoint (a signed note: origin, size, root, `global` and `time` lines, a blank line, signatures)"
                  },
                  "tree_size": {
                    "type": "integer",
                    "minimum": -9007199254740991,
                    "maximum": 9007199254740991,
                    "description": "The checkpoint's size: the tree the proof is in"
                  },
                  "leaf_index": {
                    "type": "integer",
                    "minimum": -9007199254740991,
                    "maximum": 9007199254740991,
                    "description": "`ledger_position - 1`"
                  },
                  "inclusion_proof": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    },
                    "description": "RFC 9162 inclusion proof, 64-hex-digit hashes from the leaf up"
                  }
                },
                "required": [
                  "event_id",
                  "receipt",
                  "checkpoint",
                  "tree_size",
                  "leaf_index",
                  "inclusion_proof"
                ],
                "additionalProperties": false
              }
            }
          }
        },
        "401": {
          "description": "`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "404": {
          "description": "`RECEIPT.UNKNOWN_EVENT`, `RECEIPT.NOT_COVERED_YET`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        },
        "503": {
          "description": "`SERVICE.UNAVAILABLE`",
          "content": {
            "application/problem+json": {
              "schema": {
                "$ref": "#/components/schemas/Problem"
              }
            }
          }
        }
      },
      "security": [
        {
          "apiKey": []
        }
      ],
      "summary": "A delivered event's proof",
      "tags": [
        "receipts"
      ]
    }
  }
};
