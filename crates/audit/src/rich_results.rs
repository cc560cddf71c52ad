//! The rich results of Google Search that the audit checks a page's structured data for, as
//! one table: for each, the schema.org types it reads, the properties it requires and those
//! it recommends, and the items nested in it with their own. The source of every row is
//! Google Search Central's structured-data documentation, linked from the row;
//! docs/audit.md lists the table, generated from it ([`markdown`]).

/// One rich result of Google Search and what its structured data must hold.
#[derive(Debug)]
pub struct RichResult {
    /// Google's name for the feature.
    pub feature: &'static str,
    /// Google Search Central's page on it, the source of the row.
    pub documentation: &'static str,
    /// Where an item of its types is read as this rich result.
    pub standing: Standing,
    /// What its item must and should hold.
    pub shape: Shape,
}

/// Where on a page an item is read as a rich result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// As a top-level item, or nested in another (a video in an article).
    Anywhere,
    /// As a top-level item only: nested, it describes something else (an organization as an
    /// article's author is the author, not the site's organization).
    TopLevel,
}

/// What an item of some types must and should hold.
#[derive(Debug)]
pub struct Shape {
    /// The schema.org types it applies to.
    pub types: &'static [&'static str],
    /// Without these, no rich result.
    pub required: &'static [Need],
    /// These make a richer result.
    pub recommended: &'static [Need],
    /// The items nested under a property, each checked by the shape of its type.
    pub parts: &'static [Part],
}

/// The items a property of an item holds, and what they hold in turn.
#[derive(Debug)]
pub struct Part {
    /// The property.
    pub property: &'static str,
    /// Its items' shapes, by type: an item of none of these types is not checked.
    pub shapes: &'static [Shape],
    /// Required properties the last of the property's items may leave out: the last crumb
    /// of a breadcrumb trail is the page itself, which has no other URL to link to.
    pub last_may_lack: &'static [&'static str],
}

/// A property an item needs, or one of several ways to say the same.
#[derive(Debug)]
pub enum Need {
    /// This property.
    One(&'static str),
    /// One of these alternatives at least, each one or more properties together.
    AnyOf(&'static [&'static [Has]]),
}

/// A property an alternative holds: any value, or a given one.
#[derive(Debug)]
pub struct Has {
    /// The property.
    pub property: &'static str,
    /// The value it must hold (compared without case), if any.
    pub value: Option<&'static str>,
}

/// The property, with any value.
const fn has(property: &'static str) -> Has {
    Has {
        property,
        value: None,
    }
}

impl Shape {
    /// A shape that asks for nothing, for filling in the rest of one.
    const NONE: Shape = Shape {
        types: &[],
        required: &[],
        recommended: &[],
        parts: &[],
    };
}

impl Part {
    /// A part whose every item is checked alike.
    const fn of(property: &'static str, shapes: &'static [Shape]) -> Part {
        Part {
            property,
            shapes,
            last_may_lack: &[],
        }
    }
}

/// Properties whose value is a date: an ISO 8601 date (`2024-01-05`), or a date and time, best
/// with its offset from UTC (`2024-01-05T08:00:00+08:00`, `...Z`).
pub const DATE_PROPERTIES: &[&str] = &[
    "datePublished",
    "dateModified",
    "dateCreated",
    "uploadDate",
    "startDate",
    "endDate",
    "previousStartDate",
    "datePosted",
    "validThrough",
    "validFrom",
    "priceValidUntil",
    "expires",
    "foundingDate",
];

/// Properties whose text value is a URL, which must be absolute and http(s).
pub const URL_PROPERTIES: &[&str] = &[
    "url",
    "image",
    "thumbnailUrl",
    "contentUrl",
    "embedUrl",
    "logo",
    "item",
    "sameAs",
];

/// A person or organization named by its name and page (an article's author, an event's
/// organizer).
const PERSON_OR_ORGANIZATION: Shape = Shape {
    types: &["Person", "Organization"],
    recommended: &[Need::One("name"), Need::One("url")],
    ..Shape::NONE
};

/// A postal address, as local business and job locations give it.
const POSTAL_ADDRESS: Shape = Shape {
    types: &["PostalAddress"],
    recommended: &[
        Need::One("streetAddress"),
        Need::One("addressLocality"),
        Need::One("addressRegion"),
        Need::One("postalCode"),
        Need::One("addressCountry"),
    ],
    ..Shape::NONE
};

/// Every rich result the audit checks, in the order docs/audit.md lists them.
pub static RICH_RESULTS: &[RichResult] = &[
    RichResult {
        feature: "Article",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/article",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["Article", "NewsArticle", "BlogPosting"],
            recommended: &[
                Need::One("author"),
                Need::One("dateModified"),
                Need::One("datePublished"),
                Need::One("headline"),
                Need::One("image"),
            ],
            parts: &[Part::of("author", &[PERSON_OR_ORGANIZATION])],
            ..Shape::NONE
        },
    },
    RichResult {
        feature: "Product snippet",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/product-snippet",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["Product"],
            required: &[
                Need::One("name"),
                Need::AnyOf(&[
                    &[has("offers")],
                    &[has("review")],
                    &[has("aggregateRating")],
                ]),
            ],
            recommended: &[
                Need::One("aggregateRating"),
                Need::One("offers"),
                Need::One("review"),
            ],
            parts: &[
                Part::of(
                    "offers",
                    &[
                        Shape {
                            types: &["Offer"],
                            required: &[
                                Need::AnyOf(&[&[has("price")], &[has("priceSpecification")]]),
                                Need::AnyOf(&[
                                    &[has("priceCurrency")],
                                    &[has("priceSpecification")],
                                ]),
                            ],
                            recommended: &[Need::One("availability"), Need::One("priceValidUntil")],
                            ..Shape::NONE
                        },
                        Shape {
                            types: &["AggregateOffer"],
                            required: &[Need::One("lowPrice"), Need::One("priceCurrency")],
                            recommended: &[Need::One("highPrice"), Need::One("offerCount")],
                            ..Shape::NONE
                        },
                    ],
                ),
                Part::of(
                    "review",
                    &[Shape {
                        types: &["Review"],
                        required: &[Need::One("author"), Need::One("reviewRating")],
                        recommended: &[Need::One("datePublished")],
                        parts: &[
                            Part::of(
                                "author",
                                &[Shape {
                                    types: &["Person", "Organization"],
                                    required: &[Need::One("name")],
                                    ..Shape::NONE
                                }],
                            ),
                            Part::of(
                                "reviewRating",
                                &[Shape {
                                    types: &["Rating"],
                                    required: &[Need::One("ratingValue")],
                                    recommended: &[
                                        Need::One("bestRating"),
                                        Need::One("worstRating"),
                                    ],
                                    ..Shape::NONE
                                }],
                            ),
                        ],
                    }],
                ),
                Part::of(
                    "aggregateRating",
                    &[Shape {
                        types: &["AggregateRating"],
                        required: &[
                            Need::One("ratingValue"),
                            Need::AnyOf(&[&[has("ratingCount")], &[has("reviewCount")]]),
                        ],
                        recommended: &[Need::One("bestRating"), Need::One("worstRating")],
                        ..Shape::NONE
                    }],
                ),
            ],
        },
    },
    RichResult {
        feature: "Breadcrumb",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/breadcrumb",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["BreadcrumbList"],
            required: &[Need::One("itemListElement")],
            parts: &[Part {
                property: "itemListElement",
                shapes: &[Shape {
                    types: &["ListItem"],
                    required: &[Need::One("position"), Need::One("name"), Need::One("item")],
                    ..Shape::NONE
                }],
                last_may_lack: &["item"],
            }],
            ..Shape::NONE
        },
    },
    RichResult {
        feature: "FAQ",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/faqpage",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["FAQPage"],
            required: &[Need::One("mainEntity")],
            parts: &[Part::of(
                "mainEntity",
                &[Shape {
                    types: &["Question"],
                    required: &[Need::One("name"), Need::One("acceptedAnswer")],
                    parts: &[Part::of(
                        "acceptedAnswer",
                        &[Shape {
                            types: &["Answer"],
                            required: &[Need::One("text")],
                            ..Shape::NONE
                        }],
                    )],
                    ..Shape::NONE
                }],
            )],
            ..Shape::NONE
        },
    },
    RichResult {
        feature: "Video",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/video",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["VideoObject"],
            required: &[
                Need::One("name"),
                Need::One("thumbnailUrl"),
                Need::One("uploadDate"),
            ],
            recommended: &[
                Need::AnyOf(&[&[has("contentUrl")], &[has("embedUrl")]]),
                Need::One("description"),
                Need::One("duration"),
                Need::One("expires"),
            ],
            ..Shape::NONE
        },
    },
    RichResult {
        feature: "Event",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/event",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &[
                "Event",
                "BusinessEvent",
                "ChildrensEvent",
                "ComedyEvent",
                "DanceEvent",
                "EducationEvent",
                "ExhibitionEvent",
                "Festival",
                "FoodEvent",
                "LiteraryEvent",
                "MusicEvent",
                "SaleEvent",
                "ScreeningEvent",
                "SocialEvent",
                "SportsEvent",
                "TheaterEvent",
                "VisualArtsEvent",
            ],
            required: &[
                Need::One("location"),
                Need::One("name"),
                Need::One("startDate"),
            ],
            recommended: &[
                Need::One("description"),
                Need::One("endDate"),
                Need::One("eventAttendanceMode"),
                Need::One("eventStatus"),
                Need::One("image"),
                Need::One("offers"),
                Need::One("organizer"),
                Need::One("performer"),
            ],
            parts: &[
                Part::of(
                    "location",
                    &[
                        Shape {
                            types: &["Place"],
                            required: &[Need::One("address")],
                            recommended: &[Need::One("name")],
                            ..Shape::NONE
                        },
                        Shape {
                            types: &["VirtualLocation"],
                            required: &[Need::One("url")],
                            ..Shape::NONE
                        },
                    ],
                ),
                Part::of(
                    "offers",
                    &[Shape {
                        types: &["Offer"],
                        recommended: &[
                            Need::One("availability"),
                            Need::One("price"),
                            Need::One("priceCurrency"),
                            Need::One("url"),
                            Need::One("validFrom"),
                        ],
                        ..Shape::NONE
                    }],
                ),
                Part::of("organizer", &[PERSON_OR_ORGANIZATION]),
                Part::of(
                    "performer",
                    &[Shape {
                        types: &["Person", "PerformingGroup", "MusicGroup", "Organization"],
                        recommended: &[Need::One("name")],
                        ..Shape::NONE
                    }],
                ),
            ],
        },
    },
    RichResult {
        feature: "Organization",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/organization",
        standing: Standing::TopLevel,
        shape: Shape {
            types: &["Organization", "Corporation", "NGO", "OnlineStore"],
            recommended: &[
                Need::One("address"),
                Need::One("contactPoint"),
                Need::One("description"),
                Need::One("email"),
                Need::One("logo"),
                Need::One("name"),
                Need::One("sameAs"),
                Need::One("telephone"),
                Need::One("url"),
            ],
            ..Shape::NONE
        },
    },
    RichResult {
        feature: "Local business",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/local-business",
        standing: Standing::TopLevel,
        shape: Shape {
            types: &[
                "LocalBusiness",
                "Restaurant",
                "Store",
                "CafeOrCoffeeShop",
                "Bakery",
                "BarOrPub",
                "Dentist",
                "Hotel",
                "AutoRepair",
                "HealthAndBeautyBusiness",
                "ProfessionalService",
                "RealEstateAgent",
            ],
            required: &[Need::One("address"), Need::One("name")],
            recommended: &[
                Need::One("aggregateRating"),
                Need::One("geo"),
                Need::One("openingHoursSpecification"),
                Need::One("priceRange"),
                Need::One("telephone"),
                Need::One("url"),
            ],
            parts: &[Part::of("address", &[POSTAL_ADDRESS])],
        },
    },
    RichResult {
        feature: "Recipe",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/recipe",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["Recipe"],
            required: &[Need::One("image"), Need::One("name")],
            recommended: &[
                Need::One("aggregateRating"),
                Need::One("author"),
                Need::One("cookTime"),
                Need::One("datePublished"),
                Need::One("description"),
                Need::One("keywords"),
                Need::One("nutrition"),
                Need::One("prepTime"),
                Need::One("recipeCategory"),
                Need::One("recipeCuisine"),
                Need::One("recipeIngredient"),
                Need::One("recipeInstructions"),
                Need::One("recipeYield"),
                Need::One("totalTime"),
                Need::One("video"),
            ],
            ..Shape::NONE
        },
    },
    RichResult {
        feature: "Job posting",
        documentation: "https://developers.google.com/search/docs/appearance/structured-data/job-posting",
        standing: Standing::Anywhere,
        shape: Shape {
            types: &["JobPosting"],
            required: &[
                Need::One("datePosted"),
                Need::One("description"),
                Need::One("hiringOrganization"),
                Need::AnyOf(&[
                    &[has("jobLocation")],
                    &[
                        has("applicantLocationRequirements"),
                        Has {
                            property: "jobLocationType",
                            value: Some("TELECOMMUTE"),
                        },
                    ],
                ]),
                Need::One("title"),
            ],
            recommended: &[
                Need::One("baseSalary"),
                Need::One("directApply"),
                Need::One("employmentType"),
                Need::One("identifier"),
                Need::One("validThrough"),
            ],
            parts: &[
                Part::of(
                    "hiringOrganization",
                    &[Shape {
                        types: &["Organization", "Corporation", "NGO"],
                        required: &[Need::One("name")],
                        recommended: &[Need::One("sameAs"), Need::One("logo")],
                        ..Shape::NONE
                    }],
                ),
                Part::of(
                    "jobLocation",
                    &[Shape {
                        types: &["Place"],
                        required: &[Need::One("address")],
                        parts: &[Part::of("address", &[POSTAL_ADDRESS])],
                        ..Shape::NONE
                    }],
                ),
            ],
        },
    },
];

impl Need {
    /// How reports and docs/audit.md name it: `name`, `offers or review or aggregateRating`,
    /// `jobLocation or applicantLocationRequirements with jobLocationType TELECOMMUTE`.
    pub fn describe(&self) -> String {
        match self {
            Need::One(property) => (*property).to_string(),
            Need::AnyOf(alternatives) => alternatives
                .iter()
                .map(|alternative| {
                    alternative
                        .iter()
                        .map(|has| match has.value {
                            Some(value) => format!("{} {value}", has.property),
                            None => has.property.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(" with ")
                })
                .collect::<Vec<_>>()
                .join(" or "),
        }
    }
}

/// The table as docs/audit.md lists it: a row per rich result, then a row per nested item
/// it checks (`↳ offers: Offer`).
pub fn markdown() -> String {
    let mut text = String::from(
        "| rich result | types | required | recommended |\n| --- | --- | --- | --- |\n",
    );
    for result in RICH_RESULTS {
        let standing = match result.standing {
            Standing::Anywhere => "",
            Standing::TopLevel => " (top-level items only)",
        };
        let feature = format!("[{}]({}){standing}", result.feature, result.documentation);
        shape_rows(&mut text, &feature, "", &result.shape);
    }
    text
}

/// The rows of a shape and of its parts, each part's under its property's path from the
/// rich result's item (`review.author`).
fn shape_rows(text: &mut String, label: &str, path: &str, shape: &Shape) {
    let needs = |needs: &[Need]| {
        let names: Vec<String> = needs
            .iter()
            .map(|need| format!("`{}`", need.describe()))
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    text.push_str(&format!(
        "| {label} | {} | {} | {} |\n",
        shape.types.join(", "),
        needs(shape.required),
        needs(shape.recommended)
    ));
    for part in shape.parts {
        let path = if path.is_empty() {
            part.property.to_string()
        } else {
            format!("{path}.{}", part.property)
        };
        for nested in part.shapes {
            let mut label = format!("↳ `{path}`");
            if !part.last_may_lack.is_empty() {
                label.push_str(&format!(
                    " (the last may lack {})",
                    part.last_may_lack.join(", ")
                ));
            }
            shape_rows(text, &label, &path, nested);
        }
    }
}
