; Logistics, typed (pypddlengine bundled domain).
; Packages travel between places in different cities. Inside a city a truck drives between
; any two of its places; between cities only airplanes fly, from airport to airport. Every
; city has one truck and one airport here (the generator's choice, not the domain's).
; A package is either at a place or inside a vehicle; vehicles are always at a place.
(define (domain logistics)
  (:requirements :strips :typing)
  (:types
    city place thing - object
    airport - place
    package vehicle - thing
    truck airplane - vehicle)
  (:predicates
    (in-city ?p - place ?c - city)      ; static: place ?p belongs to city ?c
    (at ?t - thing ?p - place)          ; package or vehicle ?t is at place ?p
    (inside ?pkg - package ?v - vehicle))

  (:action load
    :parameters (?pkg - package ?v - vehicle ?p - place)
    :precondition (and (at ?v ?p) (at ?pkg ?p))
    :effect (and (inside ?pkg ?v) (not (at ?pkg ?p))))

  (:action unload
    :parameters (?pkg - package ?v - vehicle ?p - place)
    :precondition (and (at ?v ?p) (inside ?pkg ?v))
    :effect (and (at ?pkg ?p) (not (inside ?pkg ?v))))

  (:action drive
    :parameters (?t - truck ?from - place ?to - place ?c - city)
    :precondition (and (at ?t ?from) (in-city ?from ?c) (in-city ?to ?c))
    :effect (and (at ?t ?to) (not (at ?t ?from))))

  (:action fly
    :parameters (?a - airplane ?from - airport ?to - airport)
    :precondition (at ?a ?from)
    :effect (and (at ?a ?to) (not (at ?a ?from)))))
